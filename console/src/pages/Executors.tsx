import { useEffect, useState, type FormEvent } from 'react';
import { call } from '../api';
import { busyDetail, busyTotals, watchExecutors } from '../executors';
import { fmtTime } from '../format';
import { useGroups } from '../groups';
import { useSession } from '../session';
import type { ExecutorInfo, Group, GroupExecutors } from '../types';
import { ConfirmButton, ErrorBox, Field, useLoad } from '../ui';
import { EditGroup, ManualRows } from './GroupParts';

export default function Executors() {
  const { isAdmin } = useSession();
  const { groups, error: gErr, reload } = useGroups();
  const [execs, setExecs] = useState<ExecutorInfo[] | null>(null);
  const [watchError, setWatchError] = useState<unknown>(null);
  const [watchN, setWatchN] = useState(0);
  useEffect(() => {
    const ctl = new AbortController();
    setWatchError(null);
    watchExecutors(setExecs, setWatchError, ctl.signal);
    return () => ctl.abort();
  }, [watchN]);
  // A manual group's addresses with the scheduler's latest probe verdict.
  const probes = useLoad(
    () => call<{ groups?: GroupExecutors[] }>('JobAdmin/ListExecutors', {}).then((r) => r.groups ?? []),
    [watchN],
  );
  const [secret, setSecret] = useState<{ group: string; token: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState<string | null>(null);

  async function remove(g: Group) {
    setError(null);
    try {
      await call('JobAdmin/DeleteGroup', { groupId: g.id });
      reload();
    } catch (e) {
      setError(e);
    }
  }

  async function rotate(g: Group) {
    setError(null);
    try {
      const r = await call<Group>('JobAdmin/RotateGroupToken', { groupId: g.id, grace: '300s' });
      setSecret({ group: g.appName ?? '', token: r.accessToken ?? '' });
      reload();
    } catch (e) {
      setError(e);
    }
  }

  return (
    <section aria-labelledby="exec-h">
      <div className="page-head">
        <h1 id="exec-h">Executors</h1>
        <button type="button" className="secondary" onClick={() => (reload(), setWatchN((n) => n + 1))}>
          Refresh
        </button>
      </div>
      <ErrorBox error={gErr || watchError || probes.error || error} />
      <p className="hint">Executors online now, updated live as they join and leave.</p>
      {isAdmin && <CreateGroup onCreated={(g) => (setSecret({ group: g.appName ?? '', token: g.accessToken ?? '' }), reload())} />}
      {secret && (
        <div className="panel" role="status">
          Access token of <strong>{secret.group}</strong> (shown once, give it to its executors): <code>{secret.token}</code>{' '}
          <button type="button" className="secondary" onClick={() => setSecret(null)}>
            Hide
          </button>
        </div>
      )}
      {groups.map((g) => {
        const online = (execs ?? []).filter((e) => e.appName === g.appName);
        const manual = probes.data?.find((p) => p.groupId === g.id)?.manual;
        return (
          <section key={g.id} className="panel" aria-label={`Group ${g.appName}`}>
            <div className="page-head">
              <h2>
                {g.title || g.appName} <small>#{g.id} · app {g.appName} · {g.manual ? `manual: ${g.manual.addresses?.join(', ')}` : 'auto registration'}</small>
              </h2>
              {isAdmin && (
                <div className="actions">
                  <button type="button" className="secondary" aria-expanded={editing === g.id} aria-label={`Edit group ${g.appName}`} onClick={() => setEditing(editing === g.id ? null : (g.id ?? null))}>
                    Edit
                  </button>
                  <ConfirmButton label="Rotate token" ariaLabel={`Rotate token of group ${g.appName}`} confirmLabel={`Confirm rotate token of ${g.appName}`} onConfirm={() => rotate(g)} />
                  <ConfirmButton label="Delete" ariaLabel={`Delete group ${g.appName}`} className="danger" confirmLabel={`Confirm delete group ${g.appName}`} onConfirm={() => remove(g)} />
                </div>
              )}
            </div>
            {editing === g.id && (
              <EditGroup
                group={g}
                onDone={(changed) => {
                  setEditing(null);
                  if (changed) (reload(), setWatchN((n) => n + 1));
                }}
              />
            )}
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th>Address</th>
                    <th>Handlers</th>
                    <th>Capacity</th>
                    <th>Running</th>
                    <th>Busy jobs</th>
                    <th>Version</th>
                    <th>Last beat</th>
                  </tr>
                </thead>
                <tbody>
                  {g.manual && <ManualRows addresses={g.manual.addresses ?? []} probed={manual} />}
                  {online.map((e) => (
                    <tr key={e.address}>
                      <td>{e.address}</td>
                      <td>{e.handlers?.join(', ')}</td>
                      <td>{e.capacity ?? 0}</td>
                      <td>{e.runningRuns ?? 0}</td>
                      <td title={busyDetail(e) || undefined}>{busyTotals(e)}</td>
                      <td>{e.version || '—'}</td>
                      <td>{fmtTime(e.lastBeatTime)}</td>
                    </tr>
                  ))}
                  {execs && !g.manual && online.length === 0 && (
                    <tr>
                      <td colSpan={7}>No executor online.</td>
                    </tr>
                  )}
                </tbody>
              </table>
            </div>
          </section>
        );
      })}
    </section>
  );
}

function CreateGroup({ onCreated }: { onCreated: (g: Group) => void }) {
  const [appName, setAppName] = useState('');
  const [title, setTitle] = useState('');
  const [error, setError] = useState<unknown>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      const g = await call<Group>('JobAdmin/CreateGroup', { group: { appName, title, autoRegistration: {} } });
      setAppName('');
      setTitle('');
      onCreated(g);
    } catch (err) {
      setError(err);
    }
  }
  return (
    <form className="panel inline-form" onSubmit={submit} aria-label="Create group">
      <Field label="App name">
        <input value={appName} onChange={(e) => setAppName(e.target.value)} required />
      </Field>
      <Field label="Title">
        <input value={title} onChange={(e) => setTitle(e.target.value)} />
      </Field>
      <button type="submit">Create group</button>
      <ErrorBox error={error} />
    </form>
  );
}
