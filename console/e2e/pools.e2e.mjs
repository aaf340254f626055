// End-to-end test of pools in a real browser: the Pools page creates one and resizes it to one
// slot; the job form names it with a priority and the job's page shows both; two runs of the job
// (a slow one holding the slot, a short one queued behind it) show on the pool's row and on its
// queue page, the queued one with its own badge, priority and queued time on its run page, and
// gets the slot once the slow one is killed; a viewer only reads pools; deleting the pool is
// refused with the server's reason while the job names it, and allowed once the job form drops it.
// Env: see harness.mjs. Exits 1 with a message at the first failed step.
import { ADMIN, api, check, field, finish, GROUP, login, nav, page, shot, stamp, step, STEP_TIMEOUT_MS, URL_, VIEWER } from './harness.mjs';

const POOL = `e2e-pool-${stamp}`;
const JOB = `e2e-pool-job-${stamp}`;
const PRIORITY = 5;

const row = () => page.locator(`tr[data-pool="${POOL}"]`);
const cell = (label) => row().locator(`td[data-label="${label}"]`);
/** A run's row in the queue page's table `name` ("Holding slots", or the waiting runs'). */
const queueRow = (name, runId) => page.getByRole('region', { name }).locator(`tr[data-run-id="${runId}"]`);
const HOLDING = 'Holding slots';
const WAITING = 'Waiting, in the order they get a slot';

async function logInAs(token) {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('API token').waitFor();
  await login(token);
}

/** Polls the API until run `id`'s status is `status` (test set-up only). */
async function runStatus(id, status) {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const r = (await api('JobAdmin/GetRun', { runId: id, logLines: 0 })).run;
    if (r.status === status) return r;
    check(Date.now() < deadline, `run ${id} is ${r.status}, not ${status}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** Waits until the run page shows status `s` (it polls the run every second). */
async function waitStatus(s) {
  await page.waitForFunction((x) => document.querySelector('dd[data-field="Status"]')?.textContent?.trim() === x, s, { timeout: STEP_TIMEOUT_MS });
}

/** Triggers the job once through the API with `params` (ms the sample executor's "slow" handler sleeps); the run's id. */
async function trigger(jobId, params) {
  const r = await api('JobAdmin/TriggerJob', { jobId, params, triggerType: 'TRIGGER_TYPE_MANUAL' });
  check(r.runIds?.length === 1, `TriggerJob answered ${JSON.stringify(r)}`);
  return r.runIds[0];
}

// ---------------------------------------------------------------------------------------------
await step('an admin creates a pool on the Pools page; the list shows its slots and counts', async () => {
  await login(ADMIN);
  await nav('Pools').click();
  await page.getByRole('heading', { name: 'Pools' }).waitFor();
  await page.getByRole('button', { name: 'New pool' }).click();
  const form = page.getByRole('form', { name: 'Create pool' });
  await form.getByLabel(/^Pool name/).fill(POOL);
  await form.getByLabel(/^Description/).fill(`e2e pool ${stamp}`);
  await form.getByLabel(/^Slots/).fill('3');
  await form.getByRole('button', { name: 'Create pool' }).click();
  await row().waitFor();
  for (const [label, want] of [['Slots', '3'], ['Running', '0'], ['Queued', '0'], ['Description', `e2e pool ${stamp}`]]) {
    const got = await cell(label).textContent();
    check(got === want, `${label} shown: "${got}", not "${want}"`);
  }
  const p = await api('JobAdmin/GetPool', { name: POOL });
  check(p.slots === 3 && p.description === `e2e pool ${stamp}`, `the pool sent: ${JSON.stringify(p)}`);
  await shot('pools');
});

await step('editing it resizes it to one slot; its name is fixed', async () => {
  await page.getByRole('button', { name: `Edit pool ${POOL}`, exact: true }).click();
  const form = page.getByRole('form', { name: `Edit pool ${POOL}` });
  check(await form.getByLabel(/^Pool name/).evaluate((e) => e.readOnly), 'the name of a pool can be edited');
  check((await form.getByLabel(/^Slots/).inputValue()) === '3', 'the edit form does not show the slots');
  await form.getByLabel(/^Slots/).fill('1');
  await form.getByLabel(/^Description/).fill(`e2e pool ${stamp}, one slot`);
  await form.getByRole('button', { name: 'Save pool' }).click();
  await page.getByRole('status').filter({ hasText: `Saved pool ${POOL}.` }).waitFor();
  await row().locator('td[data-label="Slots"]', { hasText: /^1$/ }).waitFor();
  const p = await api('JobAdmin/GetPool', { name: POOL });
  check(p.slots === 1 && p.description === `e2e pool ${stamp}, one slot`, `the pool after the edit: ${JSON.stringify(p)}`);
});

let jobId;
await step('the job form names the pool with a priority; the job page shows them', async () => {
  await nav('Jobs').click();
  await page.getByRole('link', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: 'Create job' }).waitFor();
  const description = `e2e pool job ${stamp}`;
  await page.getByLabel('Group').selectOption(GROUP);
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(JOB);
  await page.getByLabel('Handler').fill('slow');
  await page.getByLabel(/^Description/).fill(description);
  await page.getByLabel('Schedule type').selectOption('manual');
  const pool = page.getByRole('combobox', { name: /^Pool/ });
  check((await pool.inputValue()) === '', 'a new job names a pool');
  await pool.locator(`option[value="${POOL}"]`).waitFor({ state: 'attached' });
  await pool.selectOption(POOL);
  const priority = page.getByLabel(/^Priority/);
  check((await priority.inputValue()) === '0', `a new job's priority is "${await priority.inputValue()}"`);
  await priority.fill(String(PRIORITY));
  await shot('job-form-pool');
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  const jobRow = page.locator('tr', { hasText: description });
  await jobRow.waitFor();
  jobId = await jobRow.getAttribute('data-job-id');
  const job = await api('JobAdmin/GetJob', { jobId });
  check(job.pool === POOL && job.priority === PRIORITY, `the job sent: pool ${JSON.stringify(job.pool)}, priority ${JSON.stringify(job.priority)}`);
  // The job's page shows them, and its form has them again.
  await page.goto(`${URL_}/jobs/${jobId}/edit`);
  await page.getByRole('heading', { name: `Edit job ${jobId}` }).waitFor();
  await field('Pool').waitFor();
  check((await field('Pool').textContent()) === POOL, `the job summary's pool: "${await field('Pool').textContent()}"`);
  check((await field('Priority').textContent()) === String(PRIORITY), `the job summary's priority: "${await field('Priority').textContent()}"`);
  await page.waitForFunction((p) => document.querySelector('select option[value="' + p + '"]')?.selected === true, POOL);
  check((await page.getByLabel(/^Priority/).inputValue()) === String(PRIORITY), 'the edit form does not show the priority');
});

let holder, waiter;
await step("a run holding the pool's one slot and one queued behind it show on the list and the queue page", async () => {
  holder = await trigger(jobId, '120000');
  await runStatus(holder, 'RUN_STATUS_RUNNING');
  waiter = await trigger(jobId, '1');
  await runStatus(waiter, 'RUN_STATUS_QUEUED');
  await nav('Pools').click();
  await row().locator('td[data-label="Running"]', { hasText: /^1$/ }).waitFor();
  await row().locator('td[data-label="Queued"]', { hasText: /^1$/ }).waitFor();
  await page.getByRole('link', { name: `Queue of pool ${POOL}`, exact: true }).click();
  await page.getByRole('heading', { name: `Pool ${POOL}` }).waitFor();
  check((await page.getByRole('status', { name: 'Queue state' }).textContent()).includes('following live'), 'the queue page is not following');
  await queueRow(HOLDING, holder).waitFor();
  await queueRow(WAITING, waiter).waitFor();
  const w = (label) => queueRow(WAITING, waiter).locator(`td[data-label="${label}"]`).textContent();
  check((await w('#')) === '1', `the queued run's place: "${await w('#')}"`);
  check((await w('Priority')) === String(PRIORITY), `the queued run's priority: "${await w('Priority')}"`);
  check((await w('Status')) === 'queued', `the queued run's status: "${await w('Status')}"`);
  check((await w('Job')).startsWith(jobId), `the queued run's job: "${await w('Job')}"`);
  check((await w('Queued')) !== '—', 'the queued run shows no queued time');
  check((await queueRow(WAITING, waiter).locator('.badge-queued').count()) === 1, 'the queued run has no queued badge');
  check((await queueRow(HOLDING, holder).locator('td[data-label="Status"]').textContent()) === 'running', 'the run holding the slot is not running');
  await shot('pool-queue');
});

await step('the queued run shows its pool, priority and queued time; it gets the slot once the slow run is killed', async () => {
  await queueRow(WAITING, waiter).getByRole('link', { name: `Run ${waiter}`, exact: true }).click();
  await page.getByRole('heading', { name: `Run #${waiter}` }).waitFor();
  await waitStatus('queued');
  check((await field('Pool').textContent()) === POOL, `the run's pool: "${await field('Pool').textContent()}"`);
  check((await field('Priority').textContent()) === String(PRIORITY), `the run's priority: "${await field('Priority').textContent()}"`);
  check((await field('Queued').textContent()) !== '—', 'the run shows no queued time');
  await shot('run-queued');
  await api('JobAdmin/KillRun', { runId: holder });
  await waitStatus('succeeded');
  // The queue page empties.
  await field('Pool').getByRole('link').click();
  await page.getByRole('heading', { name: `Pool ${POOL}` }).waitFor();
  await page.getByText('No run holds a slot.').waitFor();
  await page.getByText('No run is waiting.').waitFor();
});

await step('a viewer sees the pools and a queue but no button to change them', async () => {
  await logInAs(VIEWER);
  await nav('Pools').click();
  await row().waitFor();
  check(!(await page.getByRole('button', { name: /new pool|edit pool|delete pool/i }).count()), 'a viewer sees pool buttons');
  await page.getByRole('link', { name: `Queue of pool ${POOL}`, exact: true }).click();
  await page.getByText('No run is waiting.').waitFor();
  await logInAs(ADMIN);
});

await step('deleting the pool while the job names it is refused with the reason; once the job form drops it, it is deleted', async () => {
  await nav('Pools').click();
  await row().waitFor();
  await page.getByRole('button', { name: `Delete pool ${POOL}`, exact: true }).click();
  await page.getByRole('button', { name: `Confirm delete pool ${POOL}` }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  const text = await alert.textContent();
  check(/^FAILED_PRECONDITION: /.test(text) && (text.includes(jobId) || text.includes(JOB)), `deleting a pool in use shows: "${text}"`);
  check((await row().count()) === 1, 'the refused pool left the list');
  await shot('pool-delete-refused');
  // The job form takes the pool off the job.
  await page.goto(`${URL_}/jobs/${jobId}/edit`);
  await page.getByRole('heading', { name: `Edit job ${jobId}` }).waitFor();
  await page.waitForFunction((p) => document.querySelector('select option[value="' + p + '"]')?.selected === true, POOL);
  await page.getByRole('combobox', { name: /^Pool/ }).selectOption('');
  await page.getByRole('button', { name: 'Save job' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  const job = await api('JobAdmin/GetJob', { jobId });
  check(!job.pool, `the job still names pool ${JSON.stringify(job.pool)}`);
  await nav('Pools').click();
  await row().waitFor();
  await page.getByRole('button', { name: `Delete pool ${POOL}`, exact: true }).click();
  await page.getByRole('button', { name: `Confirm delete pool ${POOL}` }).click();
  await row().waitFor({ state: 'detached' });
  await page.getByRole('status').filter({ hasText: `Deleted pool ${POOL}.` }).waitFor();
  await api('JobAdmin/DeleteJob', { jobId, purgeRuns: true });
});

await finish();
