// Parts of the job form with their own data: the child-job picker and the backfill panel.
import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { call } from '../api';
import type { Job } from '../types';
import { ErrorBox, Field, useLoad } from '../ui';

/** Every job the caller reaches (ListJobs without a group), a few pages at most. */
async function reachableJobs(): Promise<Job[]> {
  const out: Job[] = [];
  let pageToken: string | undefined;
  for (let i = 0; i < 10; i++) {
    const r = await call<{ jobs?: Job[]; nextPageToken?: string }>('JobAdmin/ListJobs', { pageSize: 500, pageToken });
    out.push(...(r.jobs ?? []));
    if (!(pageToken = r.nextPageToken)) break;
  }
  return out;
}

/** Checkboxes over the reachable jobs (not `self`): the jobs a successful run triggers. */
export function ChildPicker({ self, value, onChange }: { self?: string; value: string[]; onChange: (ids: string[]) => void }) {
  const { data, error } = useLoad(reachableJobs, []);
  const [q, setQ] = useState('');
  const jobs = useMemo(() => {
    const needle = q.trim().toLowerCase();
    const list = (data ?? []).filter((j) => j.id !== self);
    // Children the caller cannot list (or not loaded yet) stay shown, so they are not dropped unseen.
    for (const id of value) if (!list.some((j) => j.id === id)) list.push({ id });
    return list.filter((j) => !needle || value.includes(j.id ?? '') || `${j.id} ${j.description ?? ''} ${j.bean?.handler ?? ''}`.toLowerCase().includes(needle));
  }, [data, self, value, q]);
  const toggle = (id: string, on: boolean) => onChange(on ? [...value, id] : value.filter((x) => x !== id));
  return (
    <fieldset className="picker">
      <legend>Child jobs (triggered after a successful run)</legend>
      <ErrorBox error={error} />
      <input type="search" aria-label="Filter child jobs" placeholder="filter…" value={q} onChange={(e) => setQ(e.target.value)} />
      <ul className="picker-list" aria-label="Child jobs">
        {jobs.map((j) => (
          <li key={j.id}>
            <label className="check">
              <input type="checkbox" checked={value.includes(j.id ?? '')} onChange={(e) => toggle(j.id ?? '', e.target.checked)} />
              #{j.id} {j.description || j.bean?.handler || ''}
            </label>
          </li>
        ))}
        {data && jobs.length === 0 && <li>No other job.</li>}
      </ul>
    </fieldset>
  );
}

function toIso(local: string): string {
  return new Date(local).toISOString();
}

/** JobAdmin.Backfill over a time range, listing the runs it created. */
export function Backfill({ jobId }: { jobId: string }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<string[] | null>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setCreated(null);
    try {
      const r = await call<{ runIds?: string[] }>('JobAdmin/Backfill', { jobId, startTime: toIso(from), endTime: toIso(to) });
      setCreated(r.runIds ?? []);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <section className="panel" aria-labelledby="backfill-h">
      <h2 id="backfill-h">Backfill</h2>
      <p className="hint">Fire the schedule's past slots in a time range once each (slots already fired are skipped).</p>
      <form className="inline-form" onSubmit={submit} aria-label={`Backfill job ${jobId}`}>
        <Field label="Slots from">
          <input type="datetime-local" step="1" value={from} onChange={(e) => setFrom(e.target.value)} required />
        </Field>
        <Field label="Slots before">
          <input type="datetime-local" step="1" value={to} onChange={(e) => setTo(e.target.value)} required />
        </Field>
        <button type="submit" disabled={busy}>
          Backfill
        </button>
      </form>
      <ErrorBox error={error} />
      {created && (
        <div role="status" aria-label="Backfill result">
          {created.length === 0 ? (
            <p>No run created: no slot in that range, or all were fired already.</p>
          ) : (
            <>
              <p>
                {created.length} run{created.length === 1 ? '' : 's'} created.{' '}
                <Link to={`/runs?jobId=${jobId}&trigger=TRIGGER_TYPE_BACKFILL`}>Show backfill runs of this job</Link>
              </p>
              <ul className="plain" aria-label="Backfill runs">
                {created.map((r) => (
                  <li key={r}>
                    <Link to={`/runs/${r}`}>Run #{r}</Link>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}
