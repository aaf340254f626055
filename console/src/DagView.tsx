// A workflow's graph as SVG (laid out by dag.ts): a box per node with its name
// and job (a condition as a hexagon with its test), an arrow per edge labelled
// with its `when` unless SUCCESS. Given a run's nodes, each box takes its
// node's state colour and shows its attempt and output, and `onSelect` makes
// the boxes buttons; otherwise a job node links to its job.
import { useMemo, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { DEFAULT_LAYOUT, edgePath, layoutDag } from './dag';
import type { Workflow, WorkflowNode, WorkflowNodeRun } from './types';
import { conditionText, nodeStateLabel, whenLabel } from './workflows';

const LINE = 15;
const CHAR_PX = 7; // roughly, at 12px: enough to cut a line before the box's edge

function fit(text: string, width: number): string {
  const max = Math.floor((width - 16) / CHAR_PX);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const jobText = (n: WorkflowNode) => (n.condition ? `if ${conditionText(n.condition)}` : `job ${n.jobName || `#${n.jobId ?? '?'}`}`);

export interface DagViewProps {
  workflow: Workflow;
  /** The drawing's accessible name. */
  label: string;
  /** A run's nodes: each box coloured by its state, with its attempt and output. */
  runNodes?: WorkflowNodeRun[];
  /** Given, the boxes are buttons that choose their node. */
  onSelect?: (node: string) => void;
  selected?: string;
}

export default function DagView({ workflow, label, runNodes, onSelect, selected }: DagViewProps) {
  const navigate = useNavigate();
  const nodes = useMemo(() => workflow.nodes ?? [], [workflow.nodes]);
  const edges = useMemo(() => (workflow.edges ?? []).map((e) => ({ ...e, from: e.from ?? '', to: e.to ?? '' })), [workflow.edges]);
  // A run's boxes are taller: they add the state line and the output line.
  const nodeHeight = runNodes ? 74 : DEFAULT_LAYOUT.nodeHeight;
  const opts = useMemo(() => ({ ...DEFAULT_LAYOUT, nodeHeight }), [nodeHeight]);
  const layout = useMemo(() => layoutDag(nodes.map((n) => n.name ?? ''), edges, opts), [nodes, edges, opts]);
  const byName = new Map(nodes.map((n) => [n.name ?? '', n]));
  const runOf = new Map((runNodes ?? []).map((r) => [r.node ?? '', r]));
  const { nodeWidth: w, nodeHeight: h } = opts;
  if (!nodes.length) return <p className="hint">This workflow has no nodes.</p>;

  // Edges between the same two nodes: their labels stacked, not overdrawn.
  const seen = new Map<string, number>();
  const edgeEls = layout.edges.map((pe) => {
    const e = edges[pe.index];
    const when = whenLabel(e);
    const k = seen.get(`${pe.from}\n${pe.to}`) ?? 0;
    seen.set(`${pe.from}\n${pe.to}`, k + 1);
    const [[x0, y0], [x1, y1]] = pe.points;
    // Every edge ends level into its target's left side (dag.ts): the arrowhead points right.
    const [xe, ye] = pe.points[pe.points.length - 1];
    const name = `edge ${pe.from} → ${pe.to}${when ? `, on ${when}` : ''}`;
    return (
      <g key={pe.index} role="img" aria-label={name} className={`dag-edge${when ? ` dag-edge-${when}` : ''}`}>
        <path d={edgePath(pe.points)} />
        <polygon className="dag-arrow" points={`${xe - 9},${ye - 4.5} ${xe},${ye} ${xe - 9},${ye + 4.5}`} />
        {when && (
          <text x={(x0 + x1) / 2} y={(y0 + y1) / 2 - 4 + k * 13} textAnchor="middle">
            {when}
          </text>
        )}
      </g>
    );
  });

  const nodeEls = layout.nodes.map((p) => {
    const n = byName.get(p.name) ?? {};
    const run = runOf.get(p.name);
    const state = runNodes ? nodeStateLabel(run?.state) : '';
    const lines: [string, string][] = [
      [p.name, 'dag-name'],
      [jobText(n), 'dag-sub'],
    ];
    if (runNodes) {
      lines.push([`${state}${run?.attempt ? ` · attempt ${run.attempt}` : ''}${run?.handleCode && run.handleCode !== 200 ? ` · ${run.handleCode}` : ''}`, 'dag-state']);
      if (run?.output) lines.push([`→ ${run.output.replace(/\n/g, ' ⏎ ')}`, 'dag-sub']);
    }
    const top = p.y + (h - lines.length * LINE) / 2 + LINE - 3;
    const body: ReactNode = (
      <>
        <title>{[p.name, jobText(n), run?.output ? `output: ${run.output}` : ''].filter(Boolean).join('\n')}</title>
        {n.condition ? (
          <polygon
            className="dag-shape"
            points={`${p.x + 12},${p.y} ${p.x + w - 12},${p.y} ${p.x + w},${p.y + h / 2} ${p.x + w - 12},${p.y + h} ${p.x + 12},${p.y + h} ${p.x},${p.y + h / 2}`}
          />
        ) : (
          <rect className="dag-shape" x={p.x} y={p.y} width={w} height={h} rx={6} />
        )}
        {lines.map(([t, cls], i) => (
          <text key={i} className={cls} x={p.x + w / 2} y={top + i * LINE} textAnchor="middle">
            {fit(t, n.condition ? w - 16 : w)}
          </text>
        ))}
      </>
    );
    const cls = `dag-node${state ? ` dag-${state}` : ''}${n.condition ? ' dag-condition' : ''}${selected === p.name ? ' selected' : ''}`;
    if (onSelect) {
      const choose = () => onSelect(p.name);
      const key = (ev: KeyboardEvent) => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          choose();
        }
      };
      return (
        <g key={p.name} className={cls} role="button" tabIndex={0} aria-label={`node ${p.name}: ${state}`} aria-pressed={selected === p.name} onClick={choose} onKeyDown={key} data-node={p.name}>
          {body}
        </g>
      );
    }
    if (n.jobId) {
      const href = `/jobs/${n.jobId}/edit`;
      const go = (ev: MouseEvent) => {
        if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
        ev.preventDefault();
        navigate(href);
      };
      return (
        <a key={p.name} className={cls} href={href} onClick={go} aria-label={`node ${p.name}: ${jobText(n)}`} data-node={p.name}>
          {body}
        </a>
      );
    }
    return (
      <g key={p.name} className={cls} role="img" aria-label={`node ${p.name}: ${jobText(n)}`} data-node={p.name}>
        {body}
      </g>
    );
  });

  // role="group", not "img": an img's children are hidden from assistive technology, and these are links and buttons.
  return (
    <div className="dag">
      <svg role="group" aria-label={label} width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`}>
        {edgeEls}
        {nodeEls}
      </svg>
    </div>
  );
}
