// The chosen node of a workflow run: its state, output and runs (each linking
// to the run's page and log), and for operators what can be done to it.
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { call } from '../api';
import type { Run, WorkflowNode, WorkflowNodeRun } from '../types';
import { ConfirmButton, Details, ErrorBox, Field, StatusBadge, useLoad } from '../ui';
import { conditionText } from '../workflows';

const NODE_RUNS_PAGE = 1000;

export default function NodePanel({
  workflowRunId,
  node,
  nodeRun,
  version,
  runCancelled,
  canMutate,
  onAct,
  onClose,
}: {
  workflowRunId: string;
  node: WorkflowNode;
  nodeRun?: WorkflowNodeRun;
  /** The run's version: the node's runs are listed again when it changes. */
  version?: string;
  /** A cancelled run refuses every node action. */
  runCancelled: boolean;
  canMutate: boolean;
  onAct: (method: string, body: object) => Promise<void>;
  onClose: () => void;
}) {
  const name = node.name ?? '';
  const [output, setOutput] = useState('');
  // The runs of every node of the workflow run (ListRuns has no node filter): this node's are picked out.
  const runs = useLoad(
    () => call<{ runs?: Run[]; nextPageToken?: string }>('JobAdmin/ListRuns', { workflowRunId, pageSize: NODE_RUNS_PAGE }),
    [workflowRunId, version],
  );
  const mine = (runs.data?.runs ?? []).filter((r) => r.workflowNode === name).sort((a, b) => Number(a.id) - Number(b.id));
  const state = nodeRun?.state ?? 'WORKFLOW_NODE_STATE_PENDING';
  const is = (...s: string[]) => s.some((x) => state === `WORKFLOW_NODE_STATE_${x}`);

  return (
    <section className="panel" aria-labelledby="node-h">
      <div className="page-head">
        <h2 id="node-h">Node {name}</h2>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <Details
        label={`Node ${name}`}
        rows={[
          ['State', <StatusBadge key="s" status={state} />],
          [
            node.condition ? 'Condition' : 'Job',
            node.condition ? conditionText(node.condition) : <Link key="j" to={`/jobs/${node.jobId}/edit`}>{node.jobName || `#${node.jobId}`}</Link>,
          ],
          ['Attempt', String(nodeRun?.attempt ?? 0)],
          ['Handle code', nodeRun?.handleCode ? String(nodeRun.handleCode) : '—'],
          ...(node.condition ? [['Holds', nodeRun?.output ? (nodeRun.holds ? 'yes' : 'no') : '—'] as [string, string]] : []),
          ['Shards', nodeRun?.shardTotal ? `${nodeRun.shards?.length ?? 0} of ${nodeRun.shardTotal} ended` : '—'],
          ['Output', nodeRun?.output ? <pre key="o" className="output">{nodeRun.output}</pre> : '—'],
        ]}
      />
      {!node.condition && (
        <>
          <h3 id="node-runs-h">Runs of node {name}</h3>
          <ErrorBox error={runs.error} />
          {runs.data && !mine.length && <p className="hint">No run of this node yet.</p>}
          <ul className="plain" aria-labelledby="node-runs-h">
            {mine.map((r) => (
              <li key={r.id}>
                <Link to={`/runs/${r.id}`}>Run #{r.id}</Link> <StatusBadge status={r.status} />{' '}
                <small>
                  node attempt {r.workflowAttempt ?? 0}
                  {r.attempt ? ` · retry ${r.attempt}` : ''}
                  {(r.shardTotal ?? 1) > 1 ? ` · shard ${r.shardIndex ?? 0} of ${r.shardTotal}` : ''}
                </small>
              </li>
            ))}
          </ul>
          {runs.data?.nextPageToken && <p className="hint">Only the first {NODE_RUNS_PAGE} runs of this workflow run are searched.</p>}
        </>
      )}
      {canMutate && !runCancelled && is('FAILED', 'CANCELLED', 'PENDING') && (
        <div className="actions" role="group" aria-label={`Actions on node ${name}`}>
          {is('FAILED', 'CANCELLED') && (
            <button type="button" aria-label={`Rerun node ${name}`} onClick={() => onAct('RerunWorkflowNode', { node: name })}>
              Rerun
            </button>
          )}
          {is('PENDING', 'FAILED') && (
            <>
              <ConfirmButton
                label="Skip"
                ariaLabel={`Skip node ${name}`}
                confirmLabel={`Confirm skip node ${name}`}
                confirmGroupLabel={`Skip node ${name}?`}
                className="secondary"
                onConfirm={() => onAct('SkipWorkflowNode', { node: name })}
                extra={<small>Its children see it as succeeded.</small>}
              />
              <ConfirmButton
                label="Mark succeeded"
                ariaLabel={`Mark node ${name} succeeded`}
                confirmLabel={`Confirm mark node ${name} succeeded`}
                confirmGroupLabel={`Mark node ${name} succeeded?`}
                className="secondary"
                onConfirm={() => onAct('MarkWorkflowNodeSucceeded', { node: name, output: output || undefined })}
                extra={
                  <Field label="Output (optional)" hint="What its children see as its output.">
                    <input value={output} onChange={(e) => setOutput(e.target.value)} />
                  </Field>
                }
              />
            </>
          )}
        </div>
      )}
    </section>
  );
}
