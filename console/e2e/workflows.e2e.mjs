// End-to-end test of the console's workflow screens (issue #31) in a real browser:
// the list, a workflow's graph and "Run now", a run followed live to its end, a
// node's runs, the node actions and Cancel, and what a viewer does not get.
// Env: see harness.mjs. Exits 1 with a message at the first failed step.
import { api, ADMIN, check, field, finish, GROUP, login, nav, page, shot, step, stamp, URL_, VIEWER } from './harness.mjs';

const job = async (name, handler, params) =>
  (await api('JobAdmin/CreateJob', { job: { groupId: GROUP, name, description: `e2e workflow job ${name}`, bean: { handler }, params } })).id;
const workflow = async (name, nodes, edges) =>
  api('JobAdmin/CreateWorkflow', { workflow: { groupId: GROUP, name, description: `e2e ${name}`, nodes, edges } });

const graph = () => page.getByRole('group', { name: /^Graph of workflow/ });
const node = (name, state) => graph().getByRole('button', { name: `node ${name}: ${state}`, exact: true });
/** Waits until the details field `label` reads `text`. */
const fieldIs = (label, text) =>
  page.waitForFunction(([l, t]) => document.querySelector(`dd[data-field="${l}"]`)?.textContent?.trim() === t, [label, text]);
const runStatus = (s) => fieldIs('Status', s);

async function openRun(id) {
  await page.goto(`${URL_}/workflow-runs/${id}`);
  await page.getByRole('heading', { name: `Workflow run #${id}` }).waitFor();
}

// ---------------------------------------------------------------------------------------------
let jobA, jobB, simple, branches;

await step('two demo jobs and a workflow a → b made through the API are listed under Workflows, filtered by group', async () => {
  jobA = await job(`e2e-wf-a-${stamp}`, 'demo', 'from a');
  jobB = await job(`e2e-wf-b-${stamp}`, 'demo', 'from b');
  simple = await workflow(`e2e-wf-${stamp}`, [{ name: 'a', jobId: jobA }, { name: 'b', jobId: jobB }], [{ from: 'a', to: 'b' }]);
  check(simple.id && simple.nodes?.[0]?.jobName === `e2e-wf-a-${stamp}`, `CreateWorkflow answered ${JSON.stringify(simple)}`);
  // A graph with a condition, branches and labelled edges, to draw only.
  branches = await workflow(
    `e2e-branches-${stamp}`,
    [
      { name: 'extract', jobId: jobA },
      { name: 'check', condition: { subject: 'WORKFLOW_CONDITION_SUBJECT_OUTPUT', op: 'WORKFLOW_CONDITION_OP_CONTAINS', value: 'rows' } },
      { name: 'load', jobId: jobB },
      { name: 'report', jobId: jobA },
      { name: 'alert', jobId: jobB },
    ],
    [
      { from: 'extract', to: 'check' },
      { from: 'check', to: 'load', when: 'WORKFLOW_EDGE_WHEN_TRUE' },
      { from: 'check', to: 'report', when: 'WORKFLOW_EDGE_WHEN_FALSE' },
      { from: 'load', to: 'report' },
      { from: 'extract', to: 'alert', when: 'WORKFLOW_EDGE_WHEN_FAILURE' },
      { from: 'extract', to: 'report', when: 'WORKFLOW_EDGE_WHEN_COMPLETION' },
    ],
  );
  await login(ADMIN);
  await nav('Workflows').click();
  await page.getByRole('heading', { name: 'Workflows' }).waitFor();
  const row = page.locator(`tr[data-workflow-id="${simple.id}"]`);
  await row.waitFor();
  check((await row.locator('td[data-label="Nodes"]').textContent()) === '2', 'the list does not count 2 nodes');
  check((await row.locator('td[data-label="Schedule"]').textContent()) === 'manual', 'a workflow without a schedule is not "manual"');
  check((await row.locator('td[data-label="Group"]').textContent()) === 'console-app', 'the list does not name the group');
  await page.locator(`tr[data-workflow-id="${branches.id}"] td[data-label="Nodes"]`, { hasText: '5' }).waitFor();
  await page.getByRole('search', { name: 'Workflow filters' }).getByLabel('Group').selectOption(GROUP);
  await page.waitForURL((u) => u.searchParams.get('groupId') === GROUP);
  await row.waitFor();
  await shot('workflows');
});

await step("the workflow page draws both nodes, each linking to its job, and the edge a → b", async () => {
  await page.getByRole('link', { name: `e2e-wf-${stamp}`, exact: true }).click();
  await page.getByRole('heading', { name: `Workflow e2e-wf-${stamp}` }).waitFor();
  const a = graph().getByRole('link', { name: `node a: job e2e-wf-a-${stamp}`, exact: true });
  const b = graph().getByRole('link', { name: `node b: job e2e-wf-b-${stamp}`, exact: true });
  await a.waitFor();
  await b.waitFor();
  await graph().getByRole('img', { name: 'edge a → b', exact: true }).waitFor();
  const [ba, bb] = [await a.boundingBox(), await b.boundingBox()];
  check(ba.x + ba.width < bb.x, `a (${JSON.stringify(ba)}) is not left of b (${JSON.stringify(bb)})`);
  await page.getByRole('cell', { name: 'No runs yet.' }).waitFor();
  await shot('workflow-detail');
  await b.click();
  await page.getByRole('heading', { name: `Edit job ${jobB}` }).waitFor();
  await page.goBack();
  await a.waitFor();
});

await step('a graph with a condition draws it apart, and labels each edge but a success one with its "when"', async () => {
  await page.goto(`${URL_}/workflows/${branches.id}`);
  await graph().getByRole('img', { name: 'node check: if output contains "rows"', exact: true }).waitFor();
  for (const name of [
    'edge extract → check',
    'edge check → load, on true',
    'edge check → report, on false',
    'edge load → report',
    'edge extract → alert, on failure',
    'edge extract → report, on completion',
  ]) {
    await graph().getByRole('img', { name, exact: true }).waitFor();
  }
  const labels = await graph().locator('.dag-edge text').allTextContents();
  check(JSON.stringify(labels.sort()) === JSON.stringify(['completion', 'failure', 'false', 'true']), `edge labels: ${labels}`);
  // Longest path from the root: report follows load, which follows check.
  const x = async (n) => (await graph().locator(`[data-node="${n}"]`).boundingBox()).x;
  check((await x('extract')) < (await x('check')) && (await x('check')) < (await x('load')) && (await x('load')) < (await x('report')), 'the columns are not extract, check, load, report');
  await shot('workflow-branches');
});

let runId, nodeRunId;
await step('"Run now" starts a manual run, whose page follows it live until both nodes have succeeded', async () => {
  await page.goto(`${URL_}/workflows/${simple.id}`);
  await page.getByRole('button', { name: 'Run now' }).click();
  await page.waitForURL(/\/workflow-runs\/\d+$/);
  runId = page.url().split('/').pop();
  await page.getByRole('heading', { name: `Workflow run #${runId}` }).waitFor();
  await graph().waitFor();
  await node('a', 'succeeded').waitFor();
  await node('b', 'succeeded').waitFor();
  await runStatus('succeeded');
  check((await field('Trigger').textContent()) === 'manual', `the trigger is "${await field('Trigger').textContent()}"`);
  await fieldIs('Workflow', `e2e-wf-${stamp}`);
  check((await page.getByRole('status', { name: 'Refresh state' }).textContent()) === 'ended: succeeded', 'the page still follows an ended run');
  await graph().getByRole('img', { name: 'edge a → b', exact: true }).waitFor();
  await shot('workflow-run');
});

await step("a node's details list its run, which links to the run's own page with its log", async () => {
  await node('b', 'succeeded').click();
  await page.getByRole('heading', { name: 'Node b', exact: true }).waitFor();
  check((await node('b', 'succeeded').getAttribute('aria-pressed')) === 'true', 'the chosen node is not marked pressed');
  const runs = page.getByRole('list', { name: 'Runs of node b' });
  const link = runs.getByRole('link', { name: /^Run #\d+$/ });
  await link.first().waitFor();
  check((await link.count()) === 1, `node b lists ${await link.count()} runs`);
  nodeRunId = (await link.textContent()).replace('Run #', '');
  check(!(await page.getByRole('button', { name: /^(Rerun|Skip|Mark) node b/ }).count()), 'a succeeded node offers actions');
  await shot('workflow-run-node');
  await link.click();
  await page.getByRole('heading', { name: `Run #${nodeRunId}` }).waitFor();
  await page.waitForFunction(() => /demo handler done/.test(document.querySelector('pre.log')?.textContent ?? ''));
  check((await page.getByLabel('Run log').textContent()).includes('params: from b'), 'the log is not job b\'s');
  const wf = await field('Workflow run').textContent();
  check(wf.startsWith(`#${runId}`) && wf.includes('node b'), `the run's workflow run: "${wf}"`);
  await field('Workflow run').getByRole('link').click();
  await page.getByRole('heading', { name: `Workflow run #${runId}` }).waitFor();
  // From the keyboard: a node is focusable and Enter chooses it.
  await node('a', 'succeeded').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Node a', exact: true }).waitFor();
  await page.getByRole('list', { name: 'Runs of node a' }).getByRole('link').first().waitFor();
  // The runs list filtered by the workflow run holds both nodes' runs.
  await field('All node runs').getByRole('link').click();
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  check((await page.getByLabel('Workflow run ID').inputValue()) === runId, 'the runs list is not filtered by the workflow run');
  await page.getByRole('link', { name: `Run ${nodeRunId}`, exact: true }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll('a[aria-label^="Run "]').length === 2);
});

await step("a run's page follows it by itself, every 2 s, while it runs", async () => {
  const jobS = await job(`e2e-wf-nap-${stamp}`, 'slow', '2500');
  const wf = await workflow(`e2e-wf-nap-${stamp}`, [{ name: 'nap', jobId: jobS }, { name: 'after', jobId: jobB }], [{ from: 'nap', to: 'after' }]);
  const run = await api('JobAdmin/TriggerWorkflow', { workflowId: wf.id });
  await openRun(run.id);
  await node('nap', 'running').waitFor();
  await node('after', 'pending').waitFor();
  check((await page.getByRole('status', { name: 'Refresh state' }).textContent()) === 'following live…', 'a running run is not followed');
  await shot('workflow-run-live');
  await node('after', 'succeeded').waitFor({ timeout: 15_000 });
  await runStatus('succeeded');
  check((await field('Trigger').textContent()) === 'api', 'a run triggered without a type is not an API run');
});

let fixWf;
await step('a failed node is rerun, then marked succeeded with an output, and the run goes on to succeed', async () => {
  const jobF = await job(`e2e-wf-fail-${stamp}`, 'fail');
  const wf = (fixWf = await workflow(`e2e-wf-fix-${stamp}`, [{ name: 'x', jobId: jobF }, { name: 'y', jobId: jobB }], [{ from: 'x', to: 'y' }]));
  const run = await api('JobAdmin/TriggerWorkflow', { workflowId: wf.id, triggerType: 'TRIGGER_TYPE_MANUAL' });
  await openRun(run.id);
  await node('x', 'failed').waitFor();
  await node('y', 'bypassed').waitFor();
  await runStatus('failed');
  await node('x', 'failed').click();
  await page.getByRole('button', { name: 'Rerun node x' }).click();
  // The rerun fails again, as its second attempt.
  await graph().locator('[data-node="x"] text', { hasText: 'failed · attempt 2' }).waitFor();
  await runStatus('failed');
  await page.getByRole('button', { name: 'Mark node x succeeded' }).click();
  const confirm = page.getByRole('group', { name: 'Mark node x succeeded?' });
  await confirm.getByLabel('Output (optional)').fill('fixed by hand');
  await shot('workflow-run-mark');
  await confirm.getByRole('button', { name: 'Confirm mark node x succeeded' }).click();
  await node('x', 'succeeded').waitFor();
  await node('y', 'succeeded').waitFor(); // polled again: the run came alive
  await runStatus('succeeded');
  await fieldIs('Output', 'fixed by hand');
  await graph().locator('[data-node="x"] text', { hasText: '→ fixed by hand' }).waitFor();
  await shot('workflow-run-fixed');
});

let slowRun;
await step('an operator cancels a running workflow run: its running node is cancelled', async () => {
  const jobS = await job(`e2e-wf-slow-${stamp}`, 'slow', '120000');
  const wf = await workflow(`e2e-wf-slow-${stamp}`, [{ name: 's', jobId: jobS }, { name: 't', jobId: jobB }], [{ from: 's', to: 't' }]);
  slowRun = (await api('JobAdmin/TriggerWorkflow', { workflowId: wf.id, triggerType: 'TRIGGER_TYPE_API' })).id;
  await openRun(slowRun);
  await node('s', 'running').waitFor();
  await node('t', 'pending').waitFor();
  check((await page.getByRole('status', { name: 'Refresh state' }).textContent()) === 'following live…', 'a running run is not followed');
  await page.getByRole('button', { name: 'Cancel run', exact: true }).click();
  await page.getByRole('button', { name: `Confirm cancel workflow run ${slowRun}` }).click();
  await runStatus('cancelled');
  await node('s', 'cancelled').waitFor();
  await node('t', 'cancelled').waitFor();
  check(!(await page.getByRole('button', { name: 'Cancel run', exact: true }).count()), 'an ended run offers Cancel');
  await node('s', 'cancelled').click();
  check(!(await page.getByRole('button', { name: /^(Rerun|Skip|Mark) node s/ }).count()), 'a cancelled run offers node actions');
  await shot('workflow-run-cancelled');
});

await step('a viewer sees the graphs and runs, but no Run now, Cancel or node action', async () => {
  const live = (await api('JobAdmin/TriggerWorkflow', { workflowId: simple.id })).id;
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('API token').waitFor();
  await login(VIEWER);
  await nav('Workflows').click();
  await page.getByRole('link', { name: `e2e-wf-${stamp}`, exact: true }).click();
  await graph().getByRole('img', { name: 'edge a → b', exact: true }).waitFor();
  await page.getByRole('link', { name: `Workflow run ${runId}`, exact: true }).waitFor();
  check(!(await page.getByRole('button', { name: 'Run now' }).count()), 'a viewer sees Run now');
  await openRun(live);
  await node('b', 'succeeded').waitFor();
  await node('a', 'succeeded').click();
  await page.getByRole('list', { name: 'Runs of node a' }).getByRole('link').first().waitFor();
  // A failed node of a failed run: an operator could rerun, skip or mark it.
  const failed = (await api('JobAdmin/TriggerWorkflow', { workflowId: fixWf.id })).id;
  await openRun(failed);
  await node('x', 'failed').click();
  await page.getByRole('heading', { name: 'Node x', exact: true }).waitFor();
  await page.getByRole('list', { name: 'Runs of node x' }).getByRole('link').first().waitFor();
  const names = await page.getByRole('button').evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') || e.textContent || '').trim()));
  const bad = names.filter((x) => /^(cancel run|rerun|skip|mark)/i.test(x));
  check(bad.length === 0, `a viewer sees ${bad.join(', ')}`);
});

await finish();
