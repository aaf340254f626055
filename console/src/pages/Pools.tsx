// Pools: concurrency slots shared by the jobs naming one (Job.pool). Anyone reads them and their
// queues; an admin creates, resizes and deletes them (the server refuses deleting one a job names,
// and says which). While a pool has runs holding or waiting for slots the list is read again
// every 2 s.
import { Link } from 'react-router-dom';
import { fmtTime } from '../format';
import { useNamedPage } from '../named';
import { POOL_REFRESH_MS, poolBusy, poolPath, usePools } from '../pools';
import { useSession } from '../session';
import type { Pool } from '../types';
import { ConfirmButton, ErrorBox, useInterval } from '../ui';
import PoolForm from './PoolForm';

export default function Pools() {
  const { isAdmin } = useSession();
  const { pools, error: loadError, reload } = usePools();
  const { editing, edit, error, saved, remove, done } = useNamedPage<Pool>('pool', 'JobAdmin/DeletePool', reload);
  const list = pools ?? [];
  useInterval(reload, POOL_REFRESH_MS, list.some(poolBusy));
  const columns = isAdmin ? 7 : 6;
  return (
    <section aria-labelledby="pools-h">
      <div className="page-head">
        <h1 id="pools-h">Pools</h1>
        <div className="actions">
          {isAdmin && editing === null && (
            <button type="button" onClick={() => edit('')}>
              New pool
            </button>
          )}
          <button type="button" className="secondary" onClick={reload}>
            Refresh
          </button>
        </div>
      </div>
      <p className="hint">
        The runs of the jobs naming a pool take its slots: at most that many run at once, across every replica; the others wait queued, the highest job
        priority first, then the oldest. A pool's name opens its queue.
      </p>
      {editing === '' && <PoolForm onDone={done} />}
      <ErrorBox error={loadError || error} />
      {saved && (
        <p role="status" className="hint">
          {saved}
        </p>
      )}
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              <th>Name</th>
              <th>Slots</th>
              <th>Running</th>
              <th>Queued</th>
              <th>Description</th>
              <th>Updated</th>
              {isAdmin && <th>Actions</th>}
            </tr>
          </thead>
          <tbody>
            {list.map((p) => (
              <tr key={p.name} data-pool={p.name}>
                <td data-label="Name">
                  <Link to={poolPath(p.name ?? '')} aria-label={`Queue of pool ${p.name}`}>
                    {p.name}
                  </Link>
                </td>
                <td data-label="Slots">{p.slots ?? 0}</td>
                <td data-label="Running">{p.running ?? 0}</td>
                <td data-label="Queued">{p.queued ?? 0}</td>
                <td data-label="Description">{p.description || '—'}</td>
                <td data-label="Updated">{fmtTime(p.updateTime)}</td>
                {isAdmin && (
                  <td data-label="Actions">
                    <div className="actions">
                      <button
                        type="button"
                        className="secondary"
                        aria-expanded={editing === p.name}
                        aria-label={`Edit pool ${p.name}`}
                        onClick={() => edit(editing === p.name ? null : (p.name ?? null))}
                      >
                        Edit
                      </button>
                      <ConfirmButton
                        label="Delete"
                        ariaLabel={`Delete pool ${p.name}`}
                        className="danger"
                        confirmLabel={`Confirm delete pool ${p.name}`}
                        confirmGroupLabel={`Delete pool ${p.name}?`}
                        onConfirm={() => remove(p)}
                      />
                    </div>
                  </td>
                )}
              </tr>
            ))}
            {pools && list.length === 0 && (
              <tr>
                <td colSpan={columns}>No pools.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {editing && list.some((p) => p.name === editing) && <PoolForm key={editing} pool={list.find((p) => p.name === editing)} onDone={done} />}
    </section>
  );
}
