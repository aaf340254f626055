// Unit tests of the workflow graph layout (src/dag.ts), with node:test: `npm test`.
// dag.ts imports nothing, so TypeScript's transpileModule (a devDependency
// already) turns it into a module loaded from a temporary file.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const source = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../src/dag.ts'), 'utf8');
const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
const dir = mkdtempSync(join(tmpdir(), 'gnomon-dag-'));
after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'dag.mjs'), js.outputText);
const { assignLayers, layoutDag, edgePath, DEFAULT_LAYOUT } = await import(pathToFileURL(join(dir, 'dag.mjs')).href);

const E = (s) => s.split(' ').filter(Boolean).map((p) => { const [from, to] = p.split('>'); return { from, to }; });
const layersOf = (names, edges) => Object.fromEntries(assignLayers(names, edges));
const boxes = (layout) => layout.nodes.map((n) => ({ ...n, w: DEFAULT_LAYOUT.nodeWidth, h: DEFAULT_LAYOUT.nodeHeight }));
const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

test('a chain takes one column per node', () => {
  assert.deepEqual(layersOf(['a', 'b', 'c'], E('a>b b>c')), { a: 0, b: 1, c: 2 });
});

test("a node's column is its longest path from a root", () => {
  assert.deepEqual(layersOf(['a', 'b', 'c', 'd'], E('a>d a>b b>c c>d')), { a: 0, b: 1, c: 2, d: 3 });
  assert.deepEqual(layersOf(['x', 'a', 'b', 'm'], E('a>b b>m x>m')), { x: 0, a: 0, b: 1, m: 2 });
});

test('a diamond has its two branches in one column', () => {
  const l = layoutDag(['a', 'b', 'c', 'd'], E('a>b a>c b>d c>d'));
  assert.deepEqual(l.layers, [['a'], ['b', 'c'], ['d']]);
  const [a, b, c, d] = l.nodes;
  assert.equal(b.x, c.x);
  assert.ok(b.y < c.y);
  assert.ok(a.x < b.x && b.x < d.x);
  // The column of one node is centred on the column of two.
  assert.equal(a.y + DEFAULT_LAYOUT.nodeHeight / 2, (b.y + c.y + DEFAULT_LAYOUT.nodeHeight) / 2);
});

test('unknown nodes and self edges are ignored, and a cycle still ends with every node placed', () => {
  assert.deepEqual(layersOf(['a', 'b'], E('a>zz zz>b a>a a>b')), { a: 0, b: 1 });
  const cyc = layersOf(['a', 'b', 'c'], E('a>b b>c c>b'));
  assert.deepEqual(Object.keys(cyc).sort(), ['a', 'b', 'c']);
  assert.equal(cyc.a, 0);
  const l = layoutDag(['a', 'b', 'c'], E('a>b b>c c>b'));
  assert.equal(l.edges.length, 3);
});

test('a column is ordered to avoid crossings', () => {
  const l = layoutDag(['a', 'b', 'c', 'd'], E('a>d b>c'));
  assert.deepEqual(l.layers, [['a', 'b'], ['d', 'c']]);
});

test('an edge spanning columns passes beside, not through, the boxes between', () => {
  const l = layoutDag(['a', 'b', 'c'], E('a>b b>c a>c'));
  const long = l.edges.find((e) => e.from === 'a' && e.to === 'c');
  assert.equal(long.points.length, 4); // out of a, into and out of column 1, into c
  const b = l.nodes.find((n) => n.name === 'b');
  const passY = long.points[1][1];
  assert.ok(passY < b.y || passY > b.y + DEFAULT_LAYOUT.nodeHeight, `the edge crosses b at y=${passY}`);
  assert.equal(long.points[1][0], b.x);
  assert.equal(long.points[2][0], b.x + DEFAULT_LAYOUT.nodeWidth);
});

test('edges start at the right of their source and end at the left of their target', () => {
  const l = layoutDag(['a', 'b'], E('a>b'));
  const [a, b] = l.nodes;
  const mid = DEFAULT_LAYOUT.nodeHeight / 2;
  assert.deepEqual(l.edges[0].points, [[a.x + DEFAULT_LAYOUT.nodeWidth, a.y + mid], [b.x, b.y + mid]]);
});

test('no two boxes overlap and all fit the drawing, in a larger graph', () => {
  const names = Array.from({ length: 40 }, (_, i) => `n${i}`);
  const edges = [];
  for (let i = 1; i < 40; i++) edges.push({ from: `n${(i * 7) % i}`, to: `n${i}` }, { from: `n${Math.floor(i / 3)}`, to: `n${i}` });
  const l = layoutDag(names, edges);
  const bs = boxes(l);
  for (let i = 0; i < bs.length; i++) {
    assert.ok(bs[i].x >= 0 && bs[i].y >= 0 && bs[i].x + bs[i].w <= l.width && bs[i].y + bs[i].h <= l.height, `${bs[i].name} outside`);
    for (let j = i + 1; j < bs.length; j++) assert.ok(!overlap(bs[i], bs[j]), `${bs[i].name} overlaps ${bs[j].name}`);
  }
  for (const e of edges) {
    const lf = l.nodes.find((n) => n.name === e.from).layer;
    const lt = l.nodes.find((n) => n.name === e.to).layer;
    assert.ok(lt > lf, `${e.from}>${e.to} does not go right`);
  }
});

test('an empty graph is empty', () => {
  const l = layoutDag([], []);
  assert.deepEqual([l.nodes, l.edges, l.width, l.height], [[], [], 0, 0]);
});

test('edge paths curve between columns and run straight within one', () => {
  assert.equal(edgePath([[0, 0], [10, 20]]), 'M 0 0 C 5 0 5 20 10 20');
  assert.equal(edgePath([[0, 0], [10, 20], [30, 20]]), 'M 0 0 C 5 0 5 20 10 20 L 30 20');
  assert.equal(edgePath([]), '');
});
