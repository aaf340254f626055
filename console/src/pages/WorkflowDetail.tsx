import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { call } from '../api';
import DagView from '../DagView';
import { enumLabel, fmtSchedule, fmtTime } from '../format';
import { useGroups } from '../groups';
import { useSession } from '../session';
import type { Workflow, WorkflowRun } from '../types';
import { Details, ErrorBox, StatusBadge, useInterval, useLoad } from '../ui';
import { nodeSummary, runIsLive } from '../workflows';

const RECENT_RUNS = 20;

/** One workflow: what it is, its graph, "Run now" and its recent runs. */
export default function WorkflowDetail() {
  const { id } = useParams();
  const { canMutate } = useSession();
  const { name: groupName } = useGroups();
  const navigate = useNavigate();
  const [actionError, setActionError] = useState<unknown>(null);
  const [starting, setStarting] = useState(false);
  const { data: wf, error } = useLoad(() => call<Workflow>('JobAdmin/GetWorkflow', { workflowId: id }), [id]);
  const runs = useLoad(
    () => call<{ runs?: WorkflowRun[] }>('JobAdmin/ListWorkflowRuns', { workflowId: id, pageSize: RECENT_RUNS }).then((r) => r.runs ?? []),
    [id],
  );

  // While a listed run is running, list again every 2 s.
  const anyLive = (runs.data ?? []).some(runIsLive);
  const { reload: reloadRuns } = runs;
  useInterval(reloadRuns, 2000, anyLive);

  async function runNow() {
    setActionError(null);
    setStarting(true);
    try {
      const run = await call<WorkflowRun>('JobAdmin/TriggerWorkflow', { workflowId: id, triggerType: 'TRIGGER_TYPE_MANUAL' });
      navigate(`/workflow-runs/${run.id}`);
    } catch (e) {
      setActionError(e);
      setStarting(false);
    }
  }

  return (
    <section aria-labelledby="workflow-h">
      <div className="page-head">
        <h1 id="workflow-h">Workflow {wf?.name ?? `#${id}`}</h1>
        {canMutate && wf && (
          <button type="button" onClick={runNow} disabled={starting}>
            Run now
          </button>
        )}
      </div>
      <ErrorBox error={error || actionError} />
      {wf && (
        <>
          <Details
            label="Workflow details"
            rows={[
              ['ID', wf.id ?? '—'],
              ['Group', groupName(wf.groupId)],
              ['Schedule', fmtSchedule(wf.schedule)],
              ['State', <StatusBadge key="s" status={wf.state} />],
              ['Misfire policy', enumLabel(wf.misfirePolicy, 'MISFIRE_POLICY_')],
              ['Params', wf.params || '—'],
              ['Description', wf.description || '—'],
              ['Updated', fmtTime(wf.updateTime)],
            ]}
          />
          <section className="panel" aria-labelledby="graph-h">
            <h2 id="graph-h">Graph</h2>
            <DagView workflow={wf} label={`Graph of workflow ${wf.name}`} />
          </section>
        </>
      )}
      <section className="panel" aria-labelledby="wf-runs-h">
        <div className="page-head">
          <h2 id="wf-runs-h">Recent runs</h2>
          <button type="button" className="secondary" onClick={reloadRuns}>
            Refresh runs
          </button>
        </div>
        <ErrorBox error={runs.error} />
        <div className="table-wrap">
          <table className="stack" aria-labelledby="wf-runs-h">
            <thead>
              <tr>
                <th>Run</th>
                <th>Status</th>
                <th>Trigger</th>
                <th>Started</th>
                <th>Ended</th>
                <th>Nodes</th>
              </tr>
            </thead>
            <tbody>
              {(runs.data ?? []).map((r) => (
                <tr key={r.id} data-workflow-run-id={r.id}>
                  <td data-label="Run">
                    <Link to={`/workflow-runs/${r.id}`} aria-label={`Workflow run ${r.id}`}>
                      #{r.id}
                    </Link>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={r.status} />
                  </td>
                  <td data-label="Trigger">{enumLabel(r.triggerType, 'TRIGGER_TYPE_')}</td>
                  <td data-label="Started">{fmtTime(r.createTime)}</td>
                  <td data-label="Ended">{fmtTime(r.endTime)}</td>
                  <td data-label="Nodes">{nodeSummary(r.nodes)}</td>
                </tr>
              ))}
              {runs.data && runs.data.length === 0 && (
                <tr>
                  <td colSpan={6}>No runs yet.</td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </section>
    </section>
  );
}
