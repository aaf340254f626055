// The create / edit form of a pool (CreatePool, UpdatePool): its name (fixed once created), a
// description and its slots. UpdatePool replaces the description and slots; the server's refusal
// is shown under the form.
import { useState, type FormEvent } from 'react';
import { call } from '../api';
import type { Pool } from '../types';
import { ErrorBox, Field } from '../ui';

/** `pool` (none: a new one) as a form; `onDone(saved)` after a save (the server's answer) or a cancel (null). */
export default function PoolForm({ pool, onDone }: { pool?: Pool; onDone: (saved: Pool | null) => void }) {
  const editing = !!pool;
  const [name, setName] = useState(pool?.name ?? '');
  const [description, setDescription] = useState(pool?.description ?? '');
  const [slots, setSlots] = useState(String(pool?.slots ?? 1));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const p: Pool = { name: name.trim(), description, slots: Number(slots) };
    try {
      onDone(await call<Pool>(`JobAdmin/${editing ? 'UpdatePool' : 'CreatePool'}`, { pool: p }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const title = editing ? `Edit pool ${pool?.name}` : 'Create pool';
  return (
    <form className="panel form-grid" onSubmit={submit} aria-label={title} onKeyDown={(e) => e.key === 'Escape' && onDone(null)}>
      <h2>{title}</h2>
      <fieldset disabled={busy}>
        <Field label="Pool name" hint={editing ? 'fixed once created' : "letters, digits, '.', '_' and '-'; jobs name it"}>
          <input value={name} onChange={(e) => setName(e.target.value)} readOnly={editing} required maxLength={64} pattern="[A-Za-z0-9._\-]+" autoFocus={!editing} />
        </Field>
        <Field label="Description">
          <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={1024} />
        </Field>
        <Field label="Slots" hint="runs of its jobs at once at most, 1 to 10000; lowered, the runs holding slots finish and none is let go until fewer hold one">
          <input type="number" min="1" max="10000" step="1" value={slots} onChange={(e) => setSlots(e.target.value)} required autoFocus={editing} />
        </Field>
      </fieldset>
      <ErrorBox error={error} />
      <div className="row">
        <button type="submit" disabled={busy}>
          {editing ? 'Save pool' : 'Create pool'}
        </button>
        <button type="button" className="secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
