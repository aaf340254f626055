// Parts of the executors screen for one group: its manual addresses with their probe state, and its edit form.
import { useState, type FormEvent } from 'react';
import { call } from '../api';
import type { Group, ManualExecutor } from '../types';
import { ErrorBox, Field } from '../ui';

/** One row per listed address of a manual group; `probed` is ListExecutors' answer (undefined while loading). */
export function ManualRows({ addresses, probed }: { addresses: string[]; probed?: ManualExecutor[] }) {
  return (
    <>
      {addresses.map((a) => {
        const p = probed?.find((x) => x.address === a);
        const state = !p ? 'unknown' : p.alive ? 'answering' : 'not answering';
        return (
          <tr key={a} data-address={a}>
            <td>{a}</td>
            <td colSpan={6}>
              manual address · probe: <span className={p && !p.alive ? 'probe-down' : undefined}>{state}</span>
            </td>
          </tr>
        );
      })}
      {addresses.length === 0 && (
        <tr>
          <td colSpan={7}>No address listed.</td>
        </tr>
      )}
    </>
  );
}

/** Title and membership of a group (UpdateGroup); the app name cannot change. */
export function EditGroup({ group, onDone }: { group: Group; onDone: (changed: boolean) => void }) {
  const [title, setTitle] = useState(group.title ?? '');
  const [manual, setManual] = useState(!!group.manual);
  const [addresses, setAddresses] = useState((group.manual?.addresses ?? []).join('\n'));
  const [error, setError] = useState<unknown>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const list = addresses
      .split(/[\s,]+/)
      .map((x) => x.trim())
      .filter(Boolean);
    const g: Group = { id: group.id, appName: group.appName, title, ...(manual ? { manual: { addresses: list } } : { autoRegistration: {} }) };
    try {
      await call<Group>('JobAdmin/UpdateGroup', { group: g });
      onDone(true);
    } catch (err) {
      setError(err);
    }
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label={`Edit group ${group.appName}`} onKeyDown={(e) => e.key === 'Escape' && onDone(false)}>
      <Field label="Title">
        <input value={title} onChange={(e) => setTitle(e.target.value)} autoFocus />
      </Field>
      <fieldset className="tabs">
        <legend>Members</legend>
        <label className="check">
          <input type="radio" name={`members-${group.id}`} checked={!manual} onChange={() => setManual(false)} /> auto registration
        </label>
        <label className="check">
          <input type="radio" name={`members-${group.id}`} checked={manual} onChange={() => setManual(true)} /> manual addresses
        </label>
      </fieldset>
      {manual && (
        <Field label="Addresses" hint="host:port, one per line">
          <textarea rows={2} value={addresses} onChange={(e) => setAddresses(e.target.value)} required />
        </Field>
      )}
      <button type="submit">Save group</button>
      <button type="button" className="secondary" onClick={() => onDone(false)}>
        Cancel
      </button>
      <ErrorBox error={error} />
    </form>
  );
}
