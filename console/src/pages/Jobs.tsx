import { useMemo, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { call } from '../api';
import { fmtSchedule, fmtTime } from '../format';
import { useGroups } from '../groups';
import { useSession } from '../session';
import type { Job } from '../types';
import { ConfirmButton, ErrorBox, Field, GroupOptions, Pager, StatusBadge, useLoad } from '../ui';

const PAGE_SIZE = 50;

export default function Jobs() {
  const { canMutate } = useSession();
  const { groups, name } = useGroups();
  const [groupId, setGroupId] = useState('');
  const [state, setState] = useState('');
  const [q, setQ] = useState('');
  const [pages, setPages] = useState<string[]>(['']); // page tokens visited
  const pageToken = pages[pages.length - 1];
  const [actionError, setActionError] = useState<unknown>(null);
  const [triggering, setTriggering] = useState<Job | null>(null);
  const { data, error, reload } = useLoad(
    () =>
      call<{ jobs?: Job[]; nextPageToken?: string }>('JobAdmin/ListJobs', {
        groupId: groupId || undefined,
        pageSize: PAGE_SIZE,
        pageToken: pageToken || undefined,
      }),
    [groupId, pageToken],
  );

  const jobs = useMemo(() => {
    const needle = q.trim().toLowerCase();
    return (data?.jobs ?? []).filter(
      (j) =>
        (!state || j.state === state) &&
        (!needle ||
          [j.id, j.description, j.bean?.handler, j.author, j.params].some((s) => s?.toLowerCase().includes(needle))),
    );
  }, [data, q, state]);

  async function act(method: string, job: Job) {
    setActionError(null);
    try {
      await call(`JobAdmin/${method}`, { jobId: job.id });
      reload();
    } catch (e) {
      setActionError(e);
    }
  }

  return (
    <section aria-labelledby="jobs-h">
      <div className="page-head">
        <h1 id="jobs-h">Jobs</h1>
        {canMutate && (
          <Link className="button" to="/jobs/new">
            Create job
          </Link>
        )}
      </div>
      <div className="filters">
        <Field label="Search">
          <input type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="id, description, handler…" />
        </Field>
        <Field label="Group">
          <select
            value={groupId}
            onChange={(e) => {
              setGroupId(e.target.value);
              setPages(['']);
            }}
          >
            <GroupOptions groups={groups} label={(g) => name(g.id)} empty="All groups" />
          </select>
        </Field>
        <Field label="State">
          <select value={state} onChange={(e) => setState(e.target.value)}>
            <option value="">Any state</option>
            <option value="JOB_STATE_RUNNING">running</option>
            <option value="JOB_STATE_STOPPED">stopped</option>
          </select>
        </Field>
      </div>
      <ErrorBox error={error || actionError} />
      {triggering && <TriggerForm job={triggering} onClose={() => setTriggering(null)} />}
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              <th>ID</th>
              <th>Job</th>
              <th>Group</th>
              <th>Schedule</th>
              <th>State</th>
              <th>Next fire</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.id} data-job-id={j.id}>
                <td data-label="ID">{j.id}</td>
                <td data-label="Job">
                  <div>
                    <strong>{j.description || '(no description)'}</strong>
                    <br />
                    <small>{j.bean?.handler ?? (j.script ? 'script' : '')}</small>
                  </div>
                </td>
                <td data-label="Group">{name(j.groupId)}</td>
                <td data-label="Schedule">{fmtSchedule(j.schedule)}</td>
                <td data-label="State">
                  <StatusBadge status={j.state} />
                </td>
                <td data-label="Next fire">{fmtTime(j.nextFireTime)}</td>
                <td data-label="Actions">
                  <div className="actions">
                  <Link to={`/runs?jobId=${j.id}`} aria-label={`Runs of job ${j.id}`}>
                    Runs
                  </Link>
                  {canMutate ? (
                    <>
                      <Link to={`/jobs/${j.id}/edit`} aria-label={`Edit job ${j.id}`}>
                        Edit
                      </Link>
                      <Link to={`/jobs/new?copy=${j.id}`} aria-label={`Copy job ${j.id}`}>
                        Copy
                      </Link>
                      <button type="button" aria-label={`Trigger job ${j.id}`} onClick={() => setTriggering(j)}>
                        Trigger
                      </button>
                      {j.state === 'JOB_STATE_RUNNING' ? (
                        <button type="button" className="secondary" aria-label={`Stop job ${j.id}`} onClick={() => act('StopJob', j)}>
                          Stop
                        </button>
                      ) : (
                        <button type="button" className="secondary" aria-label={`Start job ${j.id}`} onClick={() => act('StartJob', j)}>
                          Start
                        </button>
                      )}
                      <ConfirmButton
                        label="Delete"
                        ariaLabel={`Delete job ${j.id}`}
                        confirmLabel={`Confirm delete job ${j.id}`}
                        className="danger"
                        onConfirm={() => act('DeleteJob', j)}
                      />
                    </>
                  ) : (
                    <Link to={`/jobs/${j.id}/edit`} aria-label={`View job ${j.id}`}>
                      View
                    </Link>
                  )}
                  </div>
                </td>
              </tr>
            ))}
            {data && jobs.length === 0 && (
              <tr>
                <td colSpan={7}>No jobs.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} setPages={setPages} next={data?.nextPageToken} />
    </section>
  );
}

function TriggerForm({ job, onClose }: { job: Job; onClose: () => void }) {
  const navigate = useNavigate();
  const [params, setParams] = useState(job.params ?? '');
  const [address, setAddress] = useState('');
  const [error, setError] = useState<unknown>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      const res = await call<{ runIds?: string[] }>('JobAdmin/TriggerJob', {
        jobId: job.id,
        params,
        executorAddresses: address.trim() ? [address.trim()] : undefined,
        triggerType: 'TRIGGER_TYPE_MANUAL', // a person, not a program
      });
      const first = res.runIds?.[0];
      if (first) navigate(`/runs/${first}`);
      else onClose();
    } catch (err) {
      setError(err);
    }
  }
  return (
    <form className="panel" onSubmit={submit} aria-label={`Trigger job ${job.id} once`}>
      <h2>Trigger job {job.id} once</h2>
      <Field label="Params">
        <input value={params} onChange={(e) => setParams(e.target.value)} />
      </Field>
      <Field label="Executor address (optional)">
        <input value={address} onChange={(e) => setAddress(e.target.value)} placeholder="host:port of an online executor" />
      </Field>
      <ErrorBox error={error} />
      <div className="row">
        <button type="submit">Trigger now</button>
        <button type="button" className="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
