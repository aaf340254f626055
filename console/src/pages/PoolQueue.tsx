// One pool's queue (ListPoolQueue): the runs holding its slots, oldest first, and the runs waiting
// in the order they will get one (the highest priority first, then the oldest), followed live
// every 2 s while the page is open; gnomond unreachable, it keeps trying, any other refusal stops it.
import { Link, useParams } from 'react-router-dom';
import { ApiError, call } from '../api';
import { fmtTime } from '../format';
import { POOL_REFRESH_MS } from '../pools';
import type { Pool, PoolQueue as Queue, Run } from '../types';
import { Details, ErrorBox, StatusBadge, useInterval, useLoad } from '../ui';

/** Queued runs shown at most (ListPoolQueue's limit); queuedTotal counts them all. */
const QUEUE_LIMIT = 100;

/** An answer that polling again will not change (NOT_FOUND, PERMISSION_DENIED, ...). */
const final = (e: unknown) => e instanceof ApiError && e.code !== 'UNAVAILABLE';

export default function PoolQueue() {
  const { name = '' } = useParams();
  const pool = useLoad(() => call<Pool>('JobAdmin/GetPool', { name }), [name]);
  const queue = useLoad(() => call<Queue>('JobAdmin/ListPoolQueue', { name, limit: QUEUE_LIMIT }), [name]);
  const { reload: reloadPool } = pool;
  const { reload: reloadQueue } = queue;
  const live = !final(pool.error) && !final(queue.error);
  const reloadBoth = () => (reloadPool(), reloadQueue());
  useInterval(reloadPool, POOL_REFRESH_MS, live);
  useInterval(reloadQueue, POOL_REFRESH_MS, live);

  const p = pool.data;
  const q = queue.data;
  const waiting = q?.queuedTotal ?? q?.queued?.length ?? 0;
  const shown = q?.queued?.length ?? 0;
  return (
    <section aria-labelledby="pool-h">
      <div className="page-head">
        <h1 id="pool-h">Pool {name}</h1>
        <div className="actions">
          <span role="status" aria-label="Queue state">
            {live ? `following live every ${POOL_REFRESH_MS / 1000} s` : 'not following'}
          </span>
          <button type="button" className="secondary" onClick={reloadBoth}>
            Refresh
          </button>
          <Link to="/pools">All pools</Link>
        </div>
      </div>
      <ErrorBox error={pool.error || queue.error} />
      {p && (
        <Details
          label="Pool summary"
          rows={[
            ['Slots', String(p.slots ?? 0)],
            ['Running', `${p.running ?? 0} of ${p.slots ?? 0}`],
            ['Queued', String(p.queued ?? 0)],
            ['Description', p.description || '—'],
            ['Updated', fmtTime(p.updateTime)],
          ]}
        />
      )}
      {q && (
        <>
          <QueueTable title="Holding slots" runs={q.running ?? []} empty="No run holds a slot." />
          <QueueTable
            title="Waiting, in the order they get a slot"
            runs={q.queued ?? []}
            empty="No run is waiting."
            queued
            note={waiting > shown ? `${waiting} waiting in all; the first ${shown} shown.` : undefined}
          />
        </>
      )}
    </section>
  );
}

/** A table of a pool's runs; `queued` numbers them in grant order, else it shows when each got its slot. */
function QueueTable({ title, runs, empty, queued, note }: { title: string; runs: Run[]; empty: string; queued?: boolean; note?: string }) {
  return (
    <section className="panel" aria-label={title}>
      <h2>{title}</h2>
      {note && <p className="hint">{note}</p>}
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              {queued && <th>#</th>}
              <th>Run</th>
              <th>Job</th>
              <th>Priority</th>
              <th>Status</th>
              <th>Queued</th>
              {!queued && <th>Got a slot</th>}
            </tr>
          </thead>
          <tbody>
            {runs.map((r, i) => (
              <tr key={r.id} data-run-id={r.id}>
                {queued && <td data-label="#">{i + 1}</td>}
                <td data-label="Run">
                  <Link to={`/runs/${r.id}`} aria-label={`Run ${r.id}`}>
                    #{r.id}
                  </Link>
                </td>
                <td data-label="Job">
                  <Link to={`/jobs/${r.jobId}/edit`}>{r.jobId}</Link> <small>{r.handler}</small>
                </td>
                <td data-label="Priority">{r.priority ?? 0}</td>
                <td data-label="Status">
                  <StatusBadge status={r.status} />
                </td>
                <td data-label="Queued">{fmtTime(r.queuedTime)}</td>
                {!queued && <td data-label="Got a slot">{fmtTime(r.triggerTime)}</td>}
              </tr>
            ))}
            {runs.length === 0 && (
              <tr>
                <td colSpan={6}>{empty}</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
