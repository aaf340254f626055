import { Link } from 'react-router-dom';
import { call } from '../api';
import { enumLabel, fmtTime } from '../format';
import { useGroups } from '../groups';
import type { Run } from '../types';
import { EnumOptions, ErrorBox, Field, GroupOptions, Pager, StatusBadge, useLoad, useUrlFilters } from '../ui';

// In the order a run goes through them: QUEUED only for a job in a pool, waiting for a slot.
const STATUSES = ['QUEUED', 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED'].map((s) => `RUN_STATUS_${s}`);
const TRIGGERS = ['CRON', 'FIX_RATE', 'FIX_DELAY', 'MANUAL', 'API', 'PARENT', 'RETRY', 'MISFIRE', 'BACKFILL'].map((t) => `TRIGGER_TYPE_${t}`);

function toIso(local: string): string | undefined {
  return local ? new Date(local).toISOString() : undefined;
}

export default function Runs() {
  const { get, set: setF, query, pages, setPages, pageToken } = useUrlFilters();
  const { groups, name } = useGroups();
  const f = {
    groupId: get('groupId'),
    jobId: get('jobId'),
    workflowRunId: get('workflowRunId'),
    status: get('status'),
    trigger: get('trigger'),
    from: get('from'),
    to: get('to'),
  };
  const { data, error, reload } = useLoad(
    () =>
      call<{ runs?: Run[]; nextPageToken?: string }>('JobAdmin/ListRuns', {
        groupId: f.groupId || undefined,
        jobId: f.jobId || undefined,
        workflowRunId: f.workflowRunId || undefined,
        statuses: f.status ? [f.status] : undefined,
        triggerType: f.trigger || undefined,
        startTime: toIso(f.from),
        endTime: toIso(f.to),
        pageSize: 50,
        pageToken: pageToken || undefined,
      }),
    [query, pageToken],
  );

  return (
    <section aria-labelledby="runs-h">
      <div className="page-head">
        <h1 id="runs-h">Runs</h1>
        <button type="button" className="secondary" onClick={reload}>
          Refresh
        </button>
      </div>
      <div className="filters">
        <Field label="Group">
          <select value={f.groupId} onChange={(e) => setF('groupId', e.target.value)}>
            <GroupOptions groups={groups} label={(g) => name(g.id)} empty="All groups" />
          </select>
        </Field>
        <Field label="Job ID">
          <input inputMode="numeric" value={f.jobId} onChange={(e) => setF('jobId', e.target.value.replace(/\D/g, ''))} />
        </Field>
        <Field label="Workflow run ID">
          <input inputMode="numeric" value={f.workflowRunId} onChange={(e) => setF('workflowRunId', e.target.value.replace(/\D/g, ''))} />
        </Field>
        <Field label="Status">
          <select value={f.status} onChange={(e) => setF('status', e.target.value)}>
            <option value="">Any status</option>
            <EnumOptions values={STATUSES} prefix="RUN_STATUS_" />
          </select>
        </Field>
        <Field label="Trigger type">
          <select value={f.trigger} onChange={(e) => setF('trigger', e.target.value)}>
            <option value="">Any trigger</option>
            <EnumOptions values={TRIGGERS} prefix="TRIGGER_TYPE_" />
          </select>
        </Field>
        <Field label="From">
          <input type="datetime-local" value={f.from} onChange={(e) => setF('from', e.target.value)} />
        </Field>
        <Field label="To">
          <input type="datetime-local" value={f.to} onChange={(e) => setF('to', e.target.value)} />
        </Field>
      </div>
      <ErrorBox error={error} />
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              <th>Run</th>
              <th>Job</th>
              <th>Group</th>
              <th>Trigger</th>
              <th>Triggered</th>
              <th>Executor</th>
              <th>Status</th>
              <th>Result</th>
            </tr>
          </thead>
          <tbody>
            {(data?.runs ?? []).map((r) => (
              <tr key={r.id}>
                <td data-label="Run">
                  <Link to={`/runs/${r.id}`} aria-label={`Run ${r.id}`}>
                    #{r.id}
                  </Link>
                </td>
                <td data-label="Job">
                  <span>
                    <Link to={`/jobs/${r.jobId}/edit`}>{r.jobId}</Link> <small>{r.handler}</small>
                    {r.workflowRunId && r.workflowRunId !== '0' && (
                      <>
                        <br />
                        <small>
                          <Link to={`/workflow-runs/${r.workflowRunId}`}>workflow run #{r.workflowRunId}</Link> · node {r.workflowNode}
                        </small>
                      </>
                    )}
                  </span>
                </td>
                <td data-label="Group">{name(r.groupId)}</td>
                <td data-label="Trigger">{enumLabel(r.triggerType, 'TRIGGER_TYPE_')}</td>
                <td data-label="Triggered">{fmtTime(r.triggerTime)}</td>
                <td data-label="Executor">{r.executorAddress || '—'}</td>
                <td data-label="Status">
                  <StatusBadge status={r.status} />
                </td>
                <td data-label="Result">{r.handleCode ? `${r.handleCode} ${r.handleMessage ?? ''}` : r.triggerCode ? `${r.triggerCode} ${r.triggerMessage ?? ''}` : ''}</td>
              </tr>
            ))}
            {data && !data.runs?.length && (
              <tr>
                <td colSpan={8}>No runs.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager pages={pages} setPages={setPages} next={data?.nextPageToken} />
    </section>
  );
}
