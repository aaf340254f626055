// The layered layout of a workflow's graph, drawn left to right: each node in
// the column of its longest path from a root, the nodes of a column ordered to
// cross few edges, and an edge that spans several columns routed through a
// slot of each column between (so it never runs through a box). This module
// imports nothing: console/test/dag.test.mjs loads it on its own.

export interface DagEdgeIn {
  from: string;
  to: string;
}

export interface LayoutOptions {
  nodeWidth: number;
  nodeHeight: number;
  /** Between two columns (where edges and their labels go). */
  layerGap: number;
  /** Between two boxes of a column. */
  nodeGap: number;
  margin: number;
}

export const DEFAULT_LAYOUT: LayoutOptions = { nodeWidth: 200, nodeHeight: 58, layerGap: 80, nodeGap: 22, margin: 16 };

/** A box: its column and its top-left corner. */
export interface PlacedNode {
  name: string;
  layer: number;
  x: number;
  y: number;
}

/** An edge as the points its line passes: the source's right side, each column it crosses, the target's left side. */
export interface PlacedEdge {
  /** Its index in the edges laid out. */
  index: number;
  from: string;
  to: string;
  points: [number, number][];
}

export interface DagLayout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  /** Each column's nodes (real ones only), top to bottom. */
  layers: string[][];
  width: number;
  height: number;
}

/** The height a column gives an edge that passes through it. */
const PASS_HEIGHT = 10;
const SWEEPS = 8;
const MAX_COUNTED_SEGMENTS = 3000;

/**
 * Each node's column: 0 for a root, else one more than its deepest parent's
 * (the longest path from a root). Edges naming an unknown node or a node
 * itself are ignored; nodes of a cycle (which the server refuses) still get a
 * column, after the parents already placed.
 */
export function assignLayers(names: string[], edges: DagEdgeIn[]): Map<string, number> {
  const known = new Set(names);
  const children = new Map<string, string[]>(names.map((n) => [n, []]));
  const parents = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const e of edges) {
    if (!known.has(e.from) || !known.has(e.to) || e.from === e.to) continue;
    children.get(e.from)!.push(e.to);
    parents.get(e.to)!.push(e.from);
  }
  const layer = new Map<string, number>();
  const waiting = new Map<string, number>([...parents].map(([n, ps]) => [n, ps.length]));
  const place = (n: string) => {
    const ps = parents.get(n)!.filter((p) => layer.has(p));
    layer.set(n, ps.length ? Math.max(...ps.map((p) => layer.get(p)!)) + 1 : 0);
  };
  const ready = [...known].filter((n) => waiting.get(n) === 0);
  for (;;) {
    // Kahn's order; when only a cycle is left, place its first node anyway.
    let n = ready.shift();
    if (n === undefined) n = [...known].find((x) => !layer.has(x));
    if (n === undefined) break;
    if (layer.has(n)) continue;
    place(n);
    for (const c of children.get(n)!) {
      const w = waiting.get(c)! - 1;
      waiting.set(c, w);
      if (w === 0 && !layer.has(c)) ready.push(c);
    }
  }
  return layer;
}

/** Pairs of segments between two adjacent columns that cross. */
function crossings(upper: string[], lower: string[], succ: Map<string, string[]>): number {
  const pos = new Map(lower.map((id, i) => [id, i]));
  const segs: [number, number][] = [];
  upper.forEach((id, i) => succ.get(id)?.forEach((s) => pos.has(s) && segs.push([i, pos.get(s)!])));
  let n = 0;
  for (let a = 0; a < segs.length; a++)
    for (let b = a + 1; b < segs.length; b++)
      if ((segs[a][0] - segs[b][0]) * (segs[a][1] - segs[b][1]) < 0) n++;
  return n;
}

/** Reorders `layer` by the mean position of each id's neighbours in `fixed` (stable; an id without any keeps its place). */
function byBarycenter(layer: string[], fixed: string[], neighbours: Map<string, string[]>): string[] {
  const pos = new Map(fixed.map((id, i) => [id, i]));
  const key = layer.map((id, i) => {
    const ps = (neighbours.get(id) ?? []).filter((n) => pos.has(n)).map((n) => pos.get(n)!);
    return { id, i, k: ps.length ? ps.reduce((a, b) => a + b, 0) / ps.length : i };
  });
  key.sort((a, b) => a.k - b.k || a.i - b.i);
  return key.map((x) => x.id);
}

/** Lays out `names` (in their given order, which breaks ties) and `edges` left to right. */
export function layoutDag(names: string[], edges: DagEdgeIn[], opts: LayoutOptions = DEFAULT_LAYOUT): DagLayout {
  const unique = [...new Set(names)];
  const layerOf = assignLayers(unique, edges);
  const depth = unique.length ? Math.max(...layerOf.values()) + 1 : 0;
  const order: string[][] = Array.from({ length: depth }, () => []);
  for (const n of unique) order[layerOf.get(n)!].push(n);

  // Segments between adjacent columns, through a pass-through slot ("\0edge:column") per column crossed.
  const succ = new Map<string, string[]>();
  const pred = new Map<string, string[]>();
  const link = (a: string, b: string) => {
    succ.set(a, [...(succ.get(a) ?? []), b]);
    pred.set(b, [...(pred.get(b) ?? []), a]);
  };
  const chains: string[][] = edges.map((e, i) => {
    const lf = layerOf.get(e.from);
    const lt = layerOf.get(e.to);
    if (lf === undefined || lt === undefined) return [];
    const chain = [e.from];
    for (let l = lf + 1; l < lt; l++) {
      const pass = `\0${i}:${l}`;
      order[l].push(pass);
      chain.push(pass);
    }
    chain.push(e.to);
    // An edge that does not go rightwards (only in a cycle) is drawn straight, outside the ordering.
    if (lt > lf) for (let k = 1; k < chain.length; k++) link(chain[k - 1], chain[k]);
    return chain;
  });

  // Sweep down then up, keeping the order that crosses least. Counting
  // crossings is quadratic in a column's segments: a huge graph gets one
  // sweep each way, uncounted.
  const segments = [...succ.values()].reduce((n, s) => n + s.length, 0);
  const counted = segments <= MAX_COUNTED_SEGMENTS;
  const total = (o: string[][]) => (counted ? o.slice(1).reduce((sum, l, i) => sum + crossings(o[i], l, succ), 0) : 1);
  let best = order.map((l) => [...l]);
  let bestCount = total(best);
  let cur = best;
  for (let s = 0; s < (counted ? SWEEPS : 2) && bestCount > 0; s++) {
    cur = cur.map((l) => [...l]);
    if (s % 2 === 0) for (let l = 1; l < depth; l++) cur[l] = byBarycenter(cur[l], cur[l - 1], pred);
    else for (let l = depth - 2; l >= 0; l--) cur[l] = byBarycenter(cur[l], cur[l + 1], succ);
    const c = total(cur);
    if (c < bestCount || !counted) [best, bestCount] = [cur, c];
  }

  // Coordinates: columns left to right, each column centred on the tallest.
  const { nodeWidth, nodeHeight, layerGap, nodeGap, margin } = opts;
  const size = (id: string) => (id.startsWith('\0') ? PASS_HEIGHT : nodeHeight);
  const columnHeight = (l: string[]) => l.reduce((h, id) => h + size(id), 0) + Math.max(0, l.length - 1) * nodeGap;
  const tallest = Math.max(0, ...best.map(columnHeight));
  const at = new Map<string, { x: number; y: number }>();
  best.forEach((l, li) => {
    let y = margin + (tallest - columnHeight(l)) / 2;
    for (const id of l) {
      at.set(id, { x: margin + li * (nodeWidth + layerGap), y });
      y += size(id) + nodeGap;
    }
  });

  const mid = nodeHeight / 2;
  const placedEdges: PlacedEdge[] = [];
  chains.forEach((chain, index) => {
    if (!chain.length) return;
    const points: [number, number][] = [];
    chain.forEach((id, k) => {
      const p = at.get(id)!;
      if (k === 0) points.push([p.x + nodeWidth, p.y + mid]);
      else if (k === chain.length - 1) points.push([p.x, p.y + mid]);
      else points.push([p.x, p.y + PASS_HEIGHT / 2], [p.x + nodeWidth, p.y + PASS_HEIGHT / 2]);
    });
    placedEdges.push({ index, from: edges[index].from, to: edges[index].to, points });
  });

  return {
    nodes: unique.map((name) => ({ name, layer: layerOf.get(name)!, ...at.get(name)! })),
    edges: placedEdges,
    layers: best.map((l) => l.filter((id) => !id.startsWith('\0'))),
    width: depth ? 2 * margin + depth * nodeWidth + (depth - 1) * layerGap : 0,
    height: depth ? 2 * margin + tallest : 0,
  };
}

/** An SVG path through `points`: a curve with level ends between columns, straight within one. */
export function edgePath(points: [number, number][]): string {
  if (!points.length) return '';
  let d = `M ${points[0][0]} ${points[0][1]}`;
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1];
    const [x1, y1] = points[i];
    const c = (x1 - x0) / 2;
    d += y0 === y1 || c <= 0 ? ` L ${x1} ${y1}` : ` C ${x0 + c} ${y0} ${x1 - c} ${y1} ${x1} ${y1}`;
  }
  return d;
}
