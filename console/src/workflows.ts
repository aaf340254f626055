// What the workflow screens say of nodes, edges and runs (workflow.proto).
import { enumLabel } from './format';
import type { WorkflowCondition, WorkflowEdge, WorkflowNodeRun, WorkflowRun } from './types';

const OPS: Record<string, string> = { EQ: '=', NE: '≠', GT: '>', LT: '<', CONTAINS: 'contains', NON_EMPTY: 'non-empty' };

/** An enum value without its prefix, or `dflt` when unset (proto JSON leaves a default out). */
const bare = (v: string | undefined, prefix: string, dflt: string) =>
  v && !v.endsWith('_UNSPECIFIED') ? v.slice(prefix.length) : dflt;

/** "output non-empty", "handle code = 200", "output contains "ok"". */
export function conditionText(c: WorkflowCondition | undefined): string {
  const subject = bare(c?.subject, 'WORKFLOW_CONDITION_SUBJECT_', 'OUTPUT').toLowerCase().replace(/_/g, ' ');
  const op = bare(c?.op, 'WORKFLOW_CONDITION_OP_', 'NON_EMPTY');
  if (op === 'NON_EMPTY') return `${subject} non-empty`;
  return `${subject} ${OPS[op] ?? op.toLowerCase()} ${/^-?\d+(\.\d+)?$/.test(c?.value ?? '') ? c?.value : JSON.stringify(c?.value ?? '')}`;
}

/** An edge's condition as its label: "" for SUCCESS (the usual case, unlabelled), else "failure", "completion", "true", "false". */
export function whenLabel(e: WorkflowEdge): string {
  const w = bare(e.when, 'WORKFLOW_EDGE_WHEN_', 'SUCCESS');
  return w === 'SUCCESS' ? '' : w.toLowerCase();
}

/** "succeeded", "failed", … for a node state. */
export const nodeStateLabel = (s: WorkflowNodeRun['state']) =>
  s && !s.endsWith('_UNSPECIFIED') ? enumLabel(s, 'WORKFLOW_NODE_STATE_') : 'pending';

export const runIsLive = (r: WorkflowRun | null | undefined) => r?.status === 'WORKFLOW_RUN_STATUS_RUNNING';

/** "2 succeeded, 1 failed": a run's nodes counted by state, in the order states first appear. */
export function nodeSummary(nodes: WorkflowNodeRun[] | undefined): string {
  const counts = new Map<string, number>();
  for (const n of nodes ?? []) counts.set(nodeStateLabel(n.state), (counts.get(nodeStateLabel(n.state)) ?? 0) + 1);
  return [...counts].map(([s, k]) => `${k} ${s}`).join(', ') || '—';
}
