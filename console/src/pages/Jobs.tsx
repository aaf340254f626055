import { useState } from 'react';
import { Link } from 'react-router-dom';
import { call } from '../api';
import { fmtSchedule, fmtTime } from '../format';
import { useGroups } from '../groups';
import { useSession } from '../session';
import type { Job } from '../types';
import { EnumOptions, ErrorBox, Field, GroupOptions, Pager, useLoad, useUrlFilters } from '../ui';
import { DeleteJobButton, JobStateBadge, LastRun, TriggerForm } from './JobActions';

const PAGE_SIZES = ['20', '50', '100', '500'];
const SCHEDULE_TYPES = ['CRON', 'FIX_RATE', 'FIX_DELAY', 'NONE'].map((t) => `SCHEDULE_TYPE_${t}`);
/** The text filters of ListJobs (case-insensitive substrings), each a URL parameter of the same name. */
const TEXT_FILTERS: [key: 'name' | 'handler' | 'author' | 'description', label: string][] = [
  ['name', 'Name'],
  ['handler', 'Handler'],
  ['author', 'Author'],
  ['description', 'Description'],
];

export default function Jobs() {
  const { canMutate } = useSession();
  const { groups, name } = useGroups();
  const { get, set: setF, query, pages, setPages, pageToken } = useUrlFilters();
  const [actionError, setActionError] = useState<unknown>(null);
  const [triggering, setTriggering] = useState<Job | null>(null);
  const pageSize = PAGE_SIZES.includes(get('size')) ? get('size') : '50';
  // The filters are the server's (ListJobs): a page holds only matching jobs.
  const { data, error, reload } = useLoad(
    () =>
      call<{ jobs?: Job[]; nextPageToken?: string }>('JobAdmin/ListJobs', {
        groupId: get('groupId') || undefined,
        name: get('name') || undefined,
        handler: get('handler') || undefined,
        author: get('author') || undefined,
        description: get('description') || undefined,
        scheduleType: get('scheduleType') || undefined,
        state: get('state') || undefined,
        pageSize: Number(pageSize),
        pageToken: pageToken || undefined,
      }),
    [query, pageToken],
  );
  const jobs = data?.jobs ?? [];

  async function act(method: string, job: Job, extra: object = {}) {
    setActionError(null);
    try {
      await call(`JobAdmin/${method}`, { jobId: job.id, ...extra });
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
      <div className="filters" role="search" aria-label="Job filters">
        {TEXT_FILTERS.map(([k, label]) => (
          <Field key={k} label={label}>
            <input type="search" value={get(k)} onChange={(e) => setF(k, e.target.value)} placeholder="contains…" />
          </Field>
        ))}
        <Field label="Group">
          <select value={get('groupId')} onChange={(e) => setF('groupId', e.target.value)}>
            <GroupOptions groups={groups} label={(g) => name(g.id)} empty="All groups" />
          </select>
        </Field>
        <Field label="Schedule type">
          <select value={get('scheduleType')} onChange={(e) => setF('scheduleType', e.target.value)}>
            <option value="">Any schedule</option>
            <EnumOptions values={SCHEDULE_TYPES} prefix="SCHEDULE_TYPE_" />
          </select>
        </Field>
        <Field label="State">
          <select value={get('state')} onChange={(e) => setF('state', e.target.value)}>
            <option value="">Any state</option>
            <option value="JOB_STATE_RUNNING">running</option>
            <option value="JOB_STATE_STOPPED">stopped</option>
            <option value="JOB_STATE_PAUSED">paused</option>
          </select>
        </Field>
        <Field label="Page size">
          <select value={pageSize} onChange={(e) => setF('size', e.target.value === '50' ? '' : e.target.value)}>
            {PAGE_SIZES.map((s) => (
              <option key={s}>{s}</option>
            ))}
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
              <th>Name</th>
              <th>Job</th>
              <th>Group</th>
              <th>Schedule</th>
              <th>State</th>
              <th>Next fire</th>
              <th>Last fire</th>
              <th>Last run</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((j) => (
              <tr key={j.id} data-job-id={j.id}>
                <td data-label="ID">{j.id}</td>
                <td data-label="Name">
                  <Link to={`/jobs/${j.id}/edit`} className="job-name">
                    {j.name}
                  </Link>
                </td>
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
                  <JobStateBadge job={j} />
                </td>
                <td data-label="Next fire">{fmtTime(j.nextFireTime)}</td>
                <td data-label="Last fire">{fmtTime(j.lastFireTime)}</td>
                <td data-label="Last run">
                  <LastRun job={j} />
                </td>
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
                        {j.state === 'JOB_STATE_PAUSED' && (
                          // StartJob resumes a paused job (and clears its failure count).
                          <button type="button" aria-label={`Resume job ${j.id}`} onClick={() => act('StartJob', j)}>
                            Resume
                          </button>
                        )}
                        {j.state === 'JOB_STATE_RUNNING' || j.state === 'JOB_STATE_PAUSED' ? (
                          <button type="button" className="secondary" aria-label={`Stop job ${j.id}`} onClick={() => act('StopJob', j)}>
                            Stop
                          </button>
                        ) : (
                          <button type="button" className="secondary" aria-label={`Start job ${j.id}`} onClick={() => act('StartJob', j)}>
                            Start
                          </button>
                        )}
                        <DeleteJobButton job={j} onDelete={(purgeRuns) => act('DeleteJob', j, { purgeRuns })} />
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
                {/* A filtered page may be short, even empty, while more jobs follow. */}
                <td colSpan={10}>{data.nextPageToken ? 'No matching jobs on this page; more may follow on the next.' : 'No jobs.'}</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} setPages={setPages} next={data?.nextPageToken} />
    </section>
  );
}
