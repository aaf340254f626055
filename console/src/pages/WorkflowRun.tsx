import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { ApiError, call } from '../api';
import DagView from '../DagView';
import { enumLabel, fmtTime } from '../format';
import { useSession } from '../session';
import type { Workflow, WorkflowRun as Run } from '../types';
import { ConfirmButton, Details, ErrorBox, StatusBadge, useLoad } from '../ui';
import { runIsLive } from '../workflows';
import NodePanel from './WorkflowNodePanel';

const REFRESH_MS = 2000;

/** One workflow run: its graph coloured by node state (live while it runs), a node's details and actions, Cancel. */
export default function WorkflowRun() {
  const { id } = useParams();
  const { canMutate } = useSession();
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [selected, setSelected] = useState<string | undefined>();
  // Bumped by an action: a run ended may run again (a rerun), so polling restarts.
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout>;
    const load = async () => {
      try {
        const r = await call<Run>('JobAdmin/GetWorkflowRun', { workflowRunId: id });
        if (!live) return;
        setRun(r);
        setError(null);
        if (runIsLive(r)) timer = setTimeout(load, REFRESH_MS);
      } catch (e) {
        if (!live) return;
        setError(e);
        // gnomond restarting or a network blip: keep trying; anything else is an answer.
        if (e instanceof ApiError && e.code === 'UNAVAILABLE') timer = setTimeout(load, REFRESH_MS);
      }
    };
    load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id, tick]);

  const workflow = useLoad(
    () => (run?.workflowId ? call<Workflow>('JobAdmin/GetWorkflow', { workflowId: run.workflowId }) : Promise.resolve(null)),
    [run?.workflowId],
  ).data;

  /** Calls a JobAdmin method on this run (each answers the run as it now is), then follows it again. */
  async function act(method: string, body: object = {}) {
    setError(null);
    try {
      const r = await call<Run>(`JobAdmin/${method}`, { workflowRunId: id, ...body });
      setRun((prev) => ({ ...r, workflow: r.workflow ?? prev?.workflow }));
    } catch (e) {
      setError(e);
    }
    setTick((t) => t + 1);
  }

  // The graph the run started with; the workflow's own only if the answer lacks it.
  const graph = run?.workflow?.nodes?.length ? run.workflow : (workflow ?? undefined);
  const node = graph?.nodes?.find((n) => n.name === selected);
  const nodeRun = run?.nodes?.find((n) => n.node === selected);
  const wfName = workflow?.name ?? graph?.name;

  return (
    <section aria-labelledby="wfrun-h">
      <div className="page-head">
        <h1 id="wfrun-h">Workflow run #{id}</h1>
        {canMutate && runIsLive(run) && (
          <ConfirmButton label="Cancel run" confirmLabel={`Confirm cancel workflow run ${id}`} className="danger" onConfirm={() => act('CancelWorkflowRun')} />
        )}
      </div>
      <ErrorBox error={error} />
      {run && (
        <Details
          label="Workflow run details"
          rows={[
            ['Status', <StatusBadge key="s" status={run.status} />],
            ['Workflow', <Link key="w" to={`/workflows/${run.workflowId}`}>{wfName ?? `#${run.workflowId}`}</Link>],
            ['Trigger', enumLabel(run.triggerType, 'TRIGGER_TYPE_')],
            ['Scheduled', fmtTime(run.scheduledTime)],
            ['Started', fmtTime(run.createTime)],
            ['Ended', fmtTime(run.endTime)],
            ['Params', run.params || '—'],
            ['All node runs', <Link key="r" to={`/runs?workflowRunId=${id}`}>in the runs list</Link>],
          ]}
        />
      )}
      {graph && (
        <section className="panel" aria-labelledby="run-graph-h">
          <div className="page-head">
            <h2 id="run-graph-h">Graph</h2>
            <span role="status" aria-label="Refresh state">
              {runIsLive(run) ? 'following live…' : `ended: ${enumLabel(run?.status, 'WORKFLOW_RUN_STATUS_')}`}
            </span>
          </div>
          <p className="hint">Choose a node for its details{canMutate ? ' and actions' : ''}.</p>
          <DagView
            workflow={graph}
            label={`Graph of workflow run ${id}`}
            runNodes={run?.nodes ?? []}
            selected={selected}
            onSelect={(n) => setSelected(n === selected ? undefined : n)}
          />
        </section>
      )}
      {selected && node && (
        <NodePanel
          workflowRunId={id ?? ''}
          node={node}
          nodeRun={nodeRun}
          version={run?.version}
          runCancelled={!!run?.cancelled || run?.status === 'WORKFLOW_RUN_STATUS_CANCELLED'}
          canMutate={canMutate}
          onAct={act}
          onClose={() => setSelected(undefined)}
        />
      )}
      {run && (
        <section className="panel" aria-labelledby="run-nodes-h">
          <h2 id="run-nodes-h">Nodes</h2>
          <ul className="node-list">
            {(run.nodes ?? []).map((n) => (
              <li key={n.node}>
                <button type="button" className="link" aria-pressed={selected === n.node} onClick={() => setSelected(n.node)}>
                  {n.node}
                </button>{' '}
                <StatusBadge status={n.state} /> {n.attempt ? <small>attempt {n.attempt}</small> : null}
              </li>
            ))}
          </ul>
        </section>
      )}
    </section>
  );
}
