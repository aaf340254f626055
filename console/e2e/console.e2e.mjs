// End-to-end test of the console in a real browser (Debian's chromium through playwright-core).
// Env: see harness.mjs.
// Exits 1 with a message at the first failed step.
import { ADMIN, api, check, field, finish, GROUP, login, nav, page, shot, step, STEP_TIMEOUT_MS, stamp, URL_, VIEWER } from './harness.mjs';

const OPERATOR = `e2e-op-${stamp}`;
const OPERATOR_PW = `pw-${stamp}-${Math.random().toString(36).slice(2)}`;

/** The job form's name box. */
const nameBox = () => page.getByRole('textbox', { name: 'Name', exact: true });

async function createJob({ name, description, handler, kind, cron, zone, params }) {
  await nav('Jobs').click();
  await page.getByRole('link', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: 'Create job' }).waitFor();
  await page.getByLabel('Group').selectOption(GROUP);
  if (name) await nameBox().fill(name);
  await page.getByLabel('Handler').fill(handler);
  await page.getByLabel('Description').fill(description);
  await page.getByLabel('Author').fill('e2e');
  await page.getByLabel('Schedule type').selectOption(kind);
  if (cron) {
    await page.getByLabel('Cron expression').fill(cron);
    await page.getByLabel('Time zone').fill(zone);
  }
  if (params) await page.getByLabel('Params').fill(params);
}

async function saveJobAndFindId(description) {
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  const row = page.locator('tr', { hasText: description });
  await row.waitFor();
  const id = await row.getAttribute('data-job-id');
  check(id, `no id on the row of ${description}`);
  return id;
}

async function triggerFromJobs(jobId, params) {
  await page.getByRole('button', { name: `Trigger job ${jobId}`, exact: true }).click();
  const form = page.getByRole('form', { name: `Trigger job ${jobId} once` });
  if (params !== undefined) await form.getByLabel('Params').fill(params);
  await form.getByRole('button', { name: 'Trigger now' }).click();
  await page.waitForURL(/\/runs\/\d+$/);
  return page.url().split('/').pop();
}

async function waitStatus(status) {
  await page.waitForFunction(
    (s) => document.querySelector('dd[data-field="Status"]')?.textContent?.trim() === s,
    status,
    { timeout: STEP_TIMEOUT_MS },
  );
}

/** Polls the API until run `id` has ended (test set-up only). */
async function runEnded(id) {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const r = (await api('JobAdmin/GetRun', { runId: id, logLines: 1 })).run;
    if (r.status === 'RUN_STATUS_SUCCEEDED' || r.status === 'RUN_STATUS_FAILED') return r;
    check(Date.now() < deadline, `run ${id} has not ended: ${r.status}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** The rows the jobs table shows, as their data-job-id. */
const jobRows = () => page.locator('tr[data-job-id]').evaluateAll((els) => els.map((e) => e.getAttribute('data-job-id')));

/** Deletes a job from the jobs table, ticking "also delete its runs and logs now" when `purge`. */
async function deleteFromJobs(jobId, purge) {
  await page.getByRole('button', { name: `Delete job ${jobId}`, exact: true }).click();
  const confirm = page.getByRole('group', { name: `Delete job ${jobId}?` });
  const box = confirm.getByRole('checkbox', { name: 'Also delete its runs and logs now' });
  check(!(await box.isChecked()), 'purging runs is ticked by default');
  check((await confirm.textContent()).includes('Otherwise its runs and logs stay until retention removes them.'), 'the confirmation does not say runs stay until retention');
  if (purge) await box.check();
  await shot(purge ? 'job-delete-purge' : 'job-delete');
  await confirm.getByRole('button', { name: `Confirm delete job ${jobId}` }).click();
  await page.locator(`tr[data-job-id="${jobId}"]`).waitFor({ state: 'detached' });
}

// ---------------------------------------------------------------------------------------------
let demoJob, demoRun, slowJob, slowRun;

await step('the login screen shows, and the admin token logs in', async () => {
  await page.goto(`${URL_}/jobs`);
  await page.waitForURL(/\/login$/);
  await page.getByLabel('API token').waitFor();
  await shot('login');
  await login(ADMIN);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Access' }).waitFor();
});

await step('a cron job created through the form previews its next 5 fire times in its zone', async () => {
  const description = `e2e cron demo ${stamp}`;
  await createJob({ name: `e2e-demo-${stamp}`, description, handler: 'demo', kind: 'cron', cron: '0 0 6 * * ?', zone: 'Europe/Berlin' });
  const items = page.getByRole('list', { name: 'Next fire times' }).getByRole('listitem');
  await page.waitForFunction(() => {
    const li = [...document.querySelectorAll('ol[aria-label="Next fire times"] li')];
    return li.length === 5 && li.every((x) => /06:00:00/.test(x.textContent ?? ''));
  });
  check((await items.count()) === 5, 'the preview does not list 5 fire times');
  const first = await items.first().textContent();
  check(/CES?T|GMT\+/.test(first ?? ''), `the preview is not in Europe/Berlin time: "${first}"`);
  await shot('job-form');
  demoJob = await saveJobAndFindId(description);
  const row = page.locator(`tr[data-job-id="${demoJob}"]`);
  check((await row.textContent()).includes('0 0 6 * * ?'), 'the jobs table does not show the cron schedule');
  check((await row.locator('td[data-label="Name"]').textContent()) === `e2e-demo-${stamp}`, 'the jobs table does not show the name');
  check((await row.locator('td[data-label="Last run"]').textContent()) === '—', 'a new job shows a last run');
});

await step('params with a date template preview as each of the next runs gets them, and a bad one is refused at its character', async () => {
  await createJob({ description: `e2e template ${stamp}`, handler: 'demo', kind: 'cron', cron: '0 30 1 * * ?', zone: 'Asia/Shanghai', params: 'day=$[yyyyMMdd-1]' });
  await page.waitForFunction(() => {
    const li = [...document.querySelectorAll('ol[aria-label="Next fire times"] li')];
    return li.length === 5 && li.every((x) => /params day=\d{8}$/.test(x.textContent ?? ''));
  });
  const rows = await page.locator('ol[aria-label="Next fire times"] li').allTextContents();
  const days = rows.map((r) => r.match(/day=(\d{8})$/)[1]);
  // Daily at 01:30 in Shanghai: each run's day before its slot, one day apart.
  for (let i = 1; i < days.length; i++) {
    const prev = Date.UTC(+days[i - 1].slice(0, 4), +days[i - 1].slice(4, 6) - 1, +days[i - 1].slice(6));
    const cur = Date.UTC(+days[i].slice(0, 4), +days[i].slice(4, 6) - 1, +days[i].slice(6));
    check(cur - prev === 86400000, `rendered days are not consecutive: ${days.join(', ')}`);
  }
  await shot('job-form-params-template');
  await page.getByLabel('Params').fill('day=$[yyyyMMQdd]');
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.getByText('at character 13: unknown pattern letter').first().waitFor();
  check(/params/.test(await page.locator('.error').first().textContent()), 'the error does not name the params field');
  await page.getByRole('button', { name: 'Back to jobs' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
});

await step('triggering the job runs it: the run succeeds and its log lines arrive in the log viewer', async () => {
  demoRun = await triggerFromJobs(demoJob, 'hello from e2e');
  await waitStatus('succeeded');
  const log = page.getByLabel('Run log');
  await page.waitForFunction(() => /demo handler done/.test(document.querySelector('pre.log')?.textContent ?? ''));
  const text = await log.textContent();
  check(text.includes('demo handler started') && text.includes('params: hello from e2e'), `unexpected log:\n${text}`);
  check((await field('Handle result').textContent()).startsWith('200'), 'handle result is not 200');
  check((await field('Started').textContent()) !== '—', 'no start time shown');
  check((await field('Trigger').textContent()) === 'manual', 'a trigger from the console is not manual');
  await shot('run-detail');
});

await step("the job's row and page show its name and last run, which links to the run", async () => {
  await nav('Jobs').click();
  const last = page.getByRole('link', { name: `Last run of job ${demoJob}: run ${demoRun}, succeeded` });
  await last.waitFor();
  check((await page.locator(`tr[data-job-id="${demoJob}"] td[data-label="Last run"]`).textContent()).includes('manual'), 'the last run does not say it was manual');
  await page.getByRole('link', { name: `e2e-demo-${stamp}`, exact: true }).click();
  await page.getByRole('heading', { name: `Edit job ${demoJob}` }).waitFor();
  await page.locator('dl[aria-label="Job summary"]').waitFor();
  check((await field('Name').textContent()) === `e2e-demo-${stamp}`, `the job page names it "${await field('Name').textContent()}"`);
  check((await field('Last fire').textContent()) === '—', 'a job never fired by its schedule shows a last fire');
  check((await nameBox().inputValue()) === `e2e-demo-${stamp}`, 'the form has not the name');
  await shot('job-detail');
  await field('Last run').getByRole('link').click();
  await page.getByRole('heading', { name: `Run #${demoRun}` }).waitFor();
});

await step('a slow job, triggered, is killed from its run page while its log follows live', async () => {
  const description = `e2e slow ${stamp}`;
  await createJob({ name: `e2e-slow-${stamp}`, description, handler: 'slow', kind: 'manual', params: '120000' });
  slowJob = await saveJobAndFindId(description);
  slowRun = await triggerFromJobs(slowJob);
  await waitStatus('running');
  await page.waitForFunction(() => /sleeping 120000 ms/.test(document.querySelector('pre.log')?.textContent ?? ''));
  check((await page.getByRole('status', { name: 'Log state' }).textContent()).includes('following'), 'log is not following');
  await page.getByRole('button', { name: 'Kill run', exact: true }).click();
  await page.getByRole('button', { name: `Confirm kill run ${slowRun}` }).click();
  await waitStatus('failed');
  const handle = await field('Handle result').textContent();
  check(/^503|kill|cancel/i.test(handle), `handle result of the killed run: "${handle}"`);
  await page.waitForFunction(() => /cancelled/.test(document.querySelector('pre.log')?.textContent ?? ''));
  check(!(await page.getByRole('button', { name: 'Kill run', exact: true }).isVisible()), 'kill button still shown on an ended run');
});

await step('a copied job is created from its original, edited and started, then deleted after confirmation', async () => {
  await nav('Jobs').click();
  await page.getByRole('link', { name: `Copy job ${demoJob}` }).click();
  await page.getByRole('heading', { name: `Copy job ${demoJob}` }).waitFor();
  await page.waitForFunction(() => document.querySelector('input[value^="Copy of e2e cron demo"]'));
  check((await page.getByLabel('Cron expression').inputValue()) === '0 0 6 * * ?', 'the copy lost its cron expression');
  check((await page.getByLabel('Time zone').inputValue()) === 'Europe/Berlin', 'the copy lost its time zone');
  check((await nameBox().inputValue()) === `e2e-demo-${stamp}-copy`, `the copy is offered the name "${await nameBox().inputValue()}"`);
  check(!(await page.getByLabel('Running (fires on its schedule)').isChecked()), 'the copy would start running');
  await shot('job-copy');
  // The server's refusals of a name are shown at the name field, naming job.name.
  const nameError = async (re, what) => {
    await page.getByRole('button', { name: 'Create job' }).click();
    const alert = page.locator('#job-name-hint');
    await page.waitForFunction((r) => new RegExp(r).test(document.querySelector('#job-name-hint')?.textContent ?? ''), re.source);
    check(re.test(await alert.textContent()), `${what} shows: "${await alert.textContent()}"`);
    check((await nameBox().getAttribute('aria-invalid')) === 'true', `${what}: the name field is not marked invalid`);
  };
  await nameBox().fill(`e2e-demo-${stamp}`);
  await nameError(/^ALREADY_EXISTS: job\.name: .*already has a job named/, 'a taken name');
  await shot('job-name-taken');
  await nameBox().fill(`job-${demoJob}`);
  await nameError(/^INVALID_ARGUMENT: job\.name: .*reserved/, 'a reserved name');
  await nameBox().fill(`e2e-demo-${stamp}-copy`);
  const copyId = await saveJobAndFindId(`Copy of e2e cron demo ${stamp}`);
  check(copyId !== demoJob, 'the copy has the id of its original');
  const copyRow = page.locator(`tr[data-job-id="${copyId}"]`);
  check((await copyRow.locator('td[data-label="Name"]').textContent()) === `e2e-demo-${stamp}-copy`, 'the copy is not named <name>-copy');
  check((await copyRow.locator('td[data-label="State"]').textContent()) === 'stopped', 'the copy is not stopped');
  const copyRun = await triggerFromJobs(copyId);
  await waitStatus('succeeded');
  await nav('Jobs').click();
  await page.getByRole('link', { name: `Edit job ${copyId}` }).click();
  await page.getByRole('heading', { name: `Edit job ${copyId}` }).waitFor();
  await page.waitForFunction(() => document.querySelector('input[value^="Copy of e2e cron demo"]'));
  await page.getByLabel('Description').fill(`Edited copy ${stamp}`);
  await nameBox().fill(`e2e-edited-${stamp}`);
  await page.getByLabel('Running (fires on its schedule)').check();
  await page.getByRole('button', { name: 'Save job' }).click();
  const edited = page.locator(`tr[data-job-id="${copyId}"]`);
  await edited.filter({ hasText: `Edited copy ${stamp}` }).waitFor();
  await edited.filter({ hasText: 'running' }).waitFor();
  check((await edited.locator('td[data-label="Name"]').textContent()) === `e2e-edited-${stamp}`, 'the rename did not show');
  check(/\d{4}-\d\d-\d\d 05:00:00/.test(await edited.textContent()), `next fire of the started copy is not 05:00 UTC: ${await edited.textContent()}`);
  await deleteFromJobs(copyId, false);
  await page.locator(`tr[data-job-id="${demoJob}"]`).waitFor();
  // Not purged: its run stays, listed under its id, until retention.
  await page.goto(`${URL_}/runs?jobId=${copyId}`);
  await page.getByRole('link', { name: `Run ${copyRun}`, exact: true }).waitFor();
});

await step('a job deleted with "also delete its runs and logs now" takes its runs with it', async () => {
  const job = await api('JobAdmin/CreateJob', { job: { groupId: GROUP, name: `e2e-purge-${stamp}`, bean: { handler: 'demo' } } });
  const run = (await api('JobAdmin/TriggerJob', { jobId: job.id, params: 'to purge' })).runIds[0];
  await runEnded(run);
  await page.goto(`${URL_}/runs?jobId=${job.id}`);
  await page.getByRole('link', { name: `Run ${run}`, exact: true }).waitFor();
  await nav('Jobs').click();
  await deleteFromJobs(job.id, true);
  await page.goto(`${URL_}/runs?jobId=${job.id}`);
  await page.getByRole('cell', { name: 'No runs.' }).waitFor();
  check(!(await page.getByRole('link', { name: `Run ${run}`, exact: true }).count()), 'a purged run is still listed');
});

let scriptJob;
await step('a shell script job is created in the form, runs with its params as $1, and stays a script when edited', async () => {
  const description = `e2e script ${stamp}`;
  await nav('Jobs').click();
  await page.getByRole('link', { name: 'Create job' }).click();
  await page.getByLabel('Group').selectOption(GROUP);
  await nameBox().fill(`e2e-script-${stamp}`);
  await page.getByLabel('Task').selectOption('script');
  check(!(await page.getByLabel('Handler').count()), 'a script job asks for a handler');
  await page.getByLabel('Language').selectOption('SCRIPT_LANGUAGE_SHELL');
  await page.getByLabel('Script source').fill('echo "script says $1"\n');
  await page.getByLabel('Description').fill(description);
  await page.getByLabel('Schedule type').selectOption('manual');
  await shot('job-form-script');
  scriptJob = await saveJobAndFindId(description);
  check((await page.locator(`tr[data-job-id="${scriptJob}"] td[data-label="Job"]`).textContent()).includes('script'), 'the row does not say script');
  const logHas = (re) => page.waitForFunction((r) => new RegExp(r).test(document.querySelector('pre.log')?.textContent ?? ''), re);
  await triggerFromJobs(scriptJob, 'hello');
  await waitStatus('succeeded');
  await logHas('script says hello');
  await nav('Jobs').click();
  await page.getByRole('link', { name: `Edit job ${scriptJob}` }).click();
  await page.waitForFunction(() => /script says/.test(document.querySelector('textarea.code')?.value ?? ''));
  check((await page.getByLabel('Task').inputValue()) === 'script', 'an edited script job is not a script');
  check((await page.getByLabel('Language').inputValue()) === 'SCRIPT_LANGUAGE_SHELL', 'the language is lost');
  await page.getByLabel('Script source').fill('echo "second version: $1"\n');
  await page.getByLabel('Remark').fill('say it twice');
  await page.getByRole('button', { name: 'Save job' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  await triggerFromJobs(scriptJob, 'hi');
  await waitStatus('succeeded');
  await logHas('second version: hi');
});

await step("a script job's versions: history with author and remark, a diff of two, and a roll back that runs again", async () => {
  await nav('Jobs').click();
  await page.getByRole('link', { name: `Edit job ${scriptJob}` }).click();
  await page.getByRole('link', { name: /^Script versions \(current v2\)/ }).click();
  await page.getByRole('heading', { name: `Script versions of job ${scriptJob}` }).waitFor();
  const row = (v) => page.locator(`tr[data-version="${v}"]`);
  await row(1).waitFor();
  // "(current)" follows once the job itself has loaded beside the list: wait for it.
  const v2Current = row(2).locator('td[data-label="Version"]', { hasText: /^v2 \(current\)$/ });
  check(await v2Current.waitFor({ timeout: 10000 }).then(() => true, () => false), 'v2 is not the current version');
  check((await row(2).locator('td[data-label="Remark"]').textContent()) === 'say it twice', 'the edit\'s remark is not kept');
  check(/^admin:/.test(await row(2).locator('td[data-label="Author"]').textContent()), 'the version does not name its author');
  const diff = page.getByLabel('Diff of version 1 and version 2');
  await diff.waitFor();
  const text = await diff.textContent();
  check(text.includes('- echo "script says $1"') && text.includes('+ echo "second version: $1"'), `the diff of v1 and v2:\n${text}`);
  await shot('script-versions');
  check(!(await page.getByRole('button', { name: 'Roll back to version 2' }).count()), 'the current version offers a roll back');
  await page.getByLabel('Remark for a roll back').fill('back to one');
  await page.getByRole('button', { name: 'Roll back to version 1', exact: true }).click();
  await page.getByRole('button', { name: 'Confirm roll back to version 1' }).click();
  await page.getByRole('status').filter({ hasText: 'Rolled back to version 1: the script is now version 3.' }).waitFor();
  await row(3).filter({ hasText: 'back to one' }).waitFor();
  // The list and the job are read separately: wait for both to show it.
  const current = row(3).locator('td[data-label="Version"]').filter({ hasText: /^v3 \(current\)$/ });
  check(await current.waitFor({ timeout: 10000 }).then(() => true, () => false), 'the roll back is not the current version');
  await page.getByRole('radio', { name: 'Diff from version 2' }).check();
  await page.getByRole('radio', { name: 'Diff to version 3' }).check();
  const back = page.getByLabel('Diff of version 2 and version 3');
  await back.waitFor();
  check((await back.textContent()).includes('+ echo "script says $1"'), `the diff of v2 and v3: ${await back.textContent()}`);
  await shot('script-rollback');
  await nav('Jobs').click();
  await triggerFromJobs(scriptJob, 'again');
  await waitStatus('succeeded');
  await page.waitForFunction(() => /script says again/.test(document.querySelector('pre.log')?.textContent ?? ''));
});

await step("the dashboard counts today's runs, including those two", async () => {
  await nav('Dashboard').click();
  const value = (label) => page.getByRole('group', { name: label }).locator('.card-value');
  await page.waitForFunction(() => {
    const v = (l) => Number(document.querySelector(`[aria-label="${l}"] .card-value`)?.textContent);
    return v('Runs today: succeeded') >= 1 && v('Runs today: failed') >= 1 && v('Online executors') >= 1 && v('Jobs') >= 2;
  });
  check(Number(await value('Jobs').textContent()) >= 2, 'job count');
  await page.getByRole('img', { name: 'Runs per day by outcome' }).waitFor();
  await page.getByRole('img', { name: 'Run duration per day, p50 and p99' }).waitFor();
  await page.getByRole('link', { name: `Run #${slowRun}` }).waitFor(); // among recent failed runs
  await shot('dashboard');
});

await step('the jobs, runs, executors, access and audit screens show their data', async () => {
  await nav('Jobs').click();
  await page.locator(`tr[data-job-id="${slowJob}"]`).waitFor();
  await shot('jobs');
  await nav('Runs').click();
  await page.getByRole('link', { name: `Run ${demoRun}`, exact: true }).waitFor();
  await page.getByLabel('Status').selectOption('RUN_STATUS_FAILED');
  await page.getByRole('link', { name: `Run ${demoRun}`, exact: true }).waitFor({ state: 'detached' });
  await page.getByRole('link', { name: `Run ${slowRun}`, exact: true }).waitFor();
  await page.getByLabel('Status').selectOption('');
  await page.getByRole('link', { name: `Run ${demoRun}`, exact: true }).waitFor();
  await shot('runs');
  await nav('Executors').click();
  await page.getByRole('cell', { name: /demo, .*slow/ }).first().waitFor();
  await shot('executors');
  await nav('Access').click();
  await page.getByRole('heading', { name: 'API tokens' }).waitFor();
  await page.getByRole('cell', { name: 'viewer', exact: true }).first().waitFor();
  const tokens = page.getByRole('form', { name: 'Create token' });
  await tokens.getByLabel('Token name').fill(`e2e-token-${stamp}`);
  await tokens.getByLabel('Role').selectOption('ROLE_OPERATOR');
  await tokens.getByRole('button', { name: 'Create token' }).click();
  await page.getByText('New token (shown once)').waitFor();
  await page.getByRole('button', { name: `Revoke token e2e-token-${stamp}` }).click();
  await page.getByRole('button', { name: `Confirm revoke token e2e-token-${stamp}` }).click();
  await page.getByRole('button', { name: `Revoke token e2e-token-${stamp}` }).waitFor({ state: 'detached' });
  const users = page.getByRole('form', { name: 'Create user' });
  await users.getByLabel('User name').fill(OPERATOR);
  await users.getByLabel('Role').selectOption('ROLE_OPERATOR');
  await users.getByLabel('All groups').uncheck();
  await users.getByLabel('Group IDs').fill(GROUP);
  await users.getByLabel('Password').fill(OPERATOR_PW);
  await users.getByRole('button', { name: 'Create user' }).click();
  await page.getByRole('cell', { name: OPERATOR, exact: true }).waitFor();
  check(
    (await page.locator('tr', { hasText: OPERATOR }).textContent()).includes(`groups ${GROUP}`),
    'the new user does not show its group grant',
  );
  await shot('access');
  await nav('Audit').click();
  await page.getByRole('cell', { name: /CreateJob/ }).first().waitFor();
  await shot('audit');
});

await step('the jobs filters are the server\'s, kept in the URL, and page with next_page_token', async () => {
  const filters = page.getByRole('search', { name: 'Job filters' });
  const only = async (want, what) => {
    await page.waitForFunction((w) => {
      const ids = [...document.querySelectorAll('tr[data-job-id]')].map((e) => e.getAttribute('data-job-id'));
      return ids.length === w.length && w.every((x) => ids.includes(x));
    }, want);
    check(JSON.stringify((await jobRows()).sort()) === JSON.stringify([...want].sort()), `${what}: rows ${await jobRows()}`);
  };
  await nav('Jobs').click();
  await filters.getByLabel('Name').fill(`E2E-SLOW-${stamp}`); // case-insensitive
  await only([slowJob], 'name filter');
  await page.reload(); // the filter is in the URL
  check((await filters.getByLabel('Name').inputValue()) === `E2E-SLOW-${stamp}`, 'the name filter is lost on reload');
  await only([slowJob], 'name filter after reload');
  check(new URL(page.url()).searchParams.get('name') === `E2E-SLOW-${stamp}`, `the URL does not hold the name filter: ${page.url()}`);
  await filters.getByLabel('Name').fill(stamp);
  await filters.getByLabel('Handler').fill('slow');
  await only([slowJob], 'handler filter');
  await filters.getByLabel('Handler').fill('');
  await filters.getByLabel('Description').fill(`cron demo ${stamp}`);
  await only([demoJob], 'description filter');
  await filters.getByLabel('Description').fill('');
  await filters.getByLabel('Schedule type').selectOption('SCHEDULE_TYPE_NONE');
  await only([slowJob, scriptJob], 'schedule type filter');
  await filters.getByLabel('Handler').fill('SCRIPT'); // a script job's handler is "script"
  await only([scriptJob], 'script handler and schedule type filters');
  await filters.getByLabel('Handler').fill('');
  await filters.getByLabel('Schedule type').selectOption('SCHEDULE_TYPE_CRON');
  await only([demoJob], 'cron schedule type filter');
  await filters.getByLabel('State').selectOption('JOB_STATE_RUNNING');
  await page.getByRole('cell', { name: 'No jobs.' }).waitFor();
  await filters.getByLabel('State').selectOption('');
  await filters.getByLabel('Schedule type').selectOption('');
  await filters.getByLabel('Author').fill('nobody-writes-this');
  await page.getByRole('cell', { name: 'No jobs.' }).waitFor();
  await filters.getByLabel('Author').fill('E2E');
  await filters.getByLabel('Group').selectOption(GROUP);
  await only([demoJob, slowJob], 'author and group filters');
  const url = new URL(page.url());
  check(url.searchParams.get('groupId') === GROUP && url.searchParams.get('author') === 'E2E', `the URL does not hold the filters: ${page.url()}`);
  await shot('jobs-filtered');

  // 21 jobs matching a name: 20 on the first page with a next page, 1 on the second.
  const made = [];
  for (let i = 0; i < 21; i++) {
    made.push((await api('JobAdmin/CreateJob', { job: { groupId: GROUP, name: `e2e-page-${stamp}-${String(i).padStart(2, '0')}`, bean: { handler: 'demo' } } })).id);
  }
  try {
    await page.goto(`${URL_}/jobs?name=e2e-page-${stamp}&size=20`);
    await only(made.slice(0, 20), 'first page');
    const next = page.getByRole('button', { name: 'Next page' });
    const prev = page.getByRole('button', { name: 'Previous page' });
    check((await next.isEnabled()) && (await prev.isDisabled()), 'the first page does not offer only the next page');
    await next.click();
    await only(made.slice(20), 'second page');
    check((await next.isDisabled()) && (await prev.isEnabled()), 'the last page offers a next page');
    await shot('jobs-page-2');
    await prev.click();
    await only(made.slice(0, 20), 'back on the first page');
  } finally {
    for (const id of made) await api('JobAdmin/DeleteJob', { jobId: id, purgeRuns: true });
  }
  await nav('Jobs').click();
  await page.locator(`tr[data-job-id="${slowJob}"]`).waitFor();
});

await step('two filters changed before the page renders again both stand', async () => {
  // Both changes in one task, as a quick user (or a browser autofill) makes
  // them: the second must not be computed from the URL before the first.
  await page.evaluate(() => {
    const form = document.querySelector('[role="search"][aria-label="Job filters"]');
    const control = (text) =>
      [...form.querySelectorAll('label')].find((l) => l.querySelector('span')?.textContent === text).querySelector('input, select');
    const setValue = (el, value) => {
      const proto = el.tagName === 'SELECT' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
      Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, value);
      el.dispatchEvent(new Event(el.tagName === 'SELECT' ? 'change' : 'input', { bubbles: true }));
    };
    setValue(control('Handler'), 'slow');
    setValue(control('Schedule type'), 'SCHEDULE_TYPE_NONE');
  });
  await page.waitForFunction(() => {
    const q = new URL(location.href).searchParams;
    return q.get('handler') === 'slow' && q.get('scheduleType') === 'SCHEDULE_TYPE_NONE';
  });
  const q = new URL(page.url()).searchParams;
  check(q.get('handler') === 'slow' && q.get('scheduleType') === 'SCHEDULE_TYPE_NONE', `a filter was lost: ${page.url()}`);
  await page.locator(`tr[data-job-id="${slowJob}"]`).waitFor();
  await nav('Jobs').click();
});

let parentJob;
await step('the job form sets misfire policy, child jobs and alarm targets on create and changes them on edit (keyboard)', async () => {
  const description = `e2e parent ${stamp}`;
  await createJob({ description, handler: 'demo', kind: 'fixRate' });
  await page.getByLabel('Interval (seconds)').fill('3600');
  await page.getByLabel('Misfire policy').selectOption('MISFIRE_POLICY_DO_NOTHING');
  await page.getByLabel('Misfire threshold (seconds, empty for 5)').fill('30');
  const child = (id) => page.getByRole('list', { name: 'Child jobs' }).getByRole('checkbox', { name: new RegExp(`^#${id} `) });
  // Keyboard only: focus the filter, type, Tab to the checkbox, Space ticks it.
  await page.getByLabel('Filter child jobs').focus();
  await page.keyboard.type(`e2e cron demo ${stamp}`);
  await child(demoJob).waitFor();
  await child(slowJob).waitFor({ state: 'detached' });
  await page.keyboard.press('Tab');
  check(await child(demoJob).evaluate((el) => el === document.activeElement), 'Tab from the filter does not reach the first child checkbox');
  await page.keyboard.press('Space');
  check(await child(demoJob).isChecked(), 'Space does not tick a child job');
  await page.getByLabel('Alarm emails').fill('not an address');
  await page.getByRole('button', { name: 'Create job' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  check(/^INVALID_ARGUMENT: .*alarm\.emails/.test(await alert.textContent()), `a bad alarm email shows: "${await alert.textContent()}"`);
  await page.getByLabel('Alarm emails').fill('ops@example.com\noncall@example.com');
  await page.getByLabel('Alarm webhook URLs').fill('http://127.0.0.1:9/hook');
  parentJob = await saveJobAndFindId(description);

  const openEdit = async () => {
    await page.getByRole('link', { name: `Edit job ${parentJob}` }).click();
    await page.getByRole('heading', { name: `Edit job ${parentJob}` }).waitFor();
    await page.waitForFunction((d) => document.querySelector(`input[value="${d}"]`), description);
  };
  await openEdit();
  check((await page.getByLabel('Misfire policy').inputValue()) === 'MISFIRE_POLICY_DO_NOTHING', 'misfire policy not saved');
  check((await page.getByLabel('Misfire threshold (seconds, empty for 5)').inputValue()) === '30', 'misfire threshold not saved');
  await child(slowJob).waitFor();
  check((await child(demoJob).isChecked()) && !(await child(slowJob).isChecked()), 'child jobs not saved as chosen');
  check((await page.getByLabel('Alarm emails').inputValue()) === 'ops@example.com\noncall@example.com', 'alarm emails not saved');
  check((await page.getByLabel('Alarm webhook URLs').inputValue()) === 'http://127.0.0.1:9/hook', 'webhook not saved');
  await shot('job-form-extras');

  await page.getByLabel('Misfire policy').selectOption('MISFIRE_POLICY_CATCH_UP');
  await child(demoJob).uncheck();
  await child(slowJob).focus();
  await page.keyboard.press('Space');
  await page.getByLabel('Alarm emails').fill('');
  await page.getByRole('button', { name: 'Save job' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  await openEdit();
  await child(demoJob).waitFor();
  check((await page.getByLabel('Misfire policy').inputValue()) === 'MISFIRE_POLICY_CATCH_UP', 'misfire policy not changed');
  check(!(await child(demoJob).isChecked()) && (await child(slowJob).isChecked()), 'child jobs not changed');
  check((await page.getByLabel('Alarm emails').inputValue()) === '', 'alarm emails not cleared');
  check((await page.getByLabel('Alarm webhook URLs').inputValue()) === 'http://127.0.0.1:9/hook', 'webhook lost on edit');
});

await step("the job form sets a deadline on create, shows it on edit and on a run's page, and clears it", async () => {
  const description = `e2e deadline ${stamp}`;
  const deadlineBox = () => page.getByLabel('Deadline (seconds after the slot, empty for none)');
  await createJob({ description, handler: 'demo', kind: 'manual' });
  check((await deadlineBox().inputValue()) === '', `a new job's deadline is "${await deadlineBox().inputValue()}"`);
  await deadlineBox().fill('90');
  const id = await saveJobAndFindId(description);
  check((await api('JobAdmin/GetJob', { jobId: id })).deadline === '90s', 'the form did not send deadline "90s"');

  // A run of it must be done 90 s after its trigger time (a manual run has no slot); its page says when.
  const runId = await triggerFromJobs(id);
  await page.getByRole('heading', { name: `Run #${runId}` }).waitFor();
  const run = (await api('JobAdmin/GetRun', { runId, logLines: 0 })).run;
  check(run.deadlineTime, `the run has no deadlineTime: ${JSON.stringify(run)}`);
  const ms = Date.parse(run.deadlineTime) - Date.parse(run.triggerTime);
  check(Math.abs(ms - 90_000) <= 1000, `the run's deadline is ${ms} ms after its trigger time`);
  // The browser runs in UTC, as fmtTime shows it: "2026-11-25 06:00:00".
  const want = new Date(run.deadlineTime).toISOString().slice(0, 19).replace('T', ' ');
  await field('Deadline').waitFor();
  check((await field('Deadline').textContent()) === want, `the run's page shows deadline "${await field('Deadline').textContent()}", not "${want}"`);
  await shot('run-deadline');

  const openEdit = async () => {
    await nav('Jobs').click();
    await page.getByRole('link', { name: `Edit job ${id}` }).click();
    await page.getByRole('heading', { name: `Edit job ${id}` }).waitFor();
    await page.locator('dl[aria-label="Job summary"]').waitFor();
    await page.waitForFunction((d) => document.querySelector(`input[value="${d}"]`), description);
  };
  await openEdit();
  check((await deadlineBox().inputValue()) === '90', `the edit form shows deadline "${await deadlineBox().inputValue()}"`);
  check((await field('Deadline').textContent()) === '90 s after the slot', `the job summary's deadline: "${await field('Deadline').textContent()}"`);
  await deadlineBox().fill('');
  await page.getByRole('button', { name: 'Save job' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  const saved = await api('JobAdmin/GetJob', { jobId: id });
  check(!saved.deadline, `saving an empty deadline left ${JSON.stringify(saved.deadline)}`);
  check(saved.description === description, 'saving the cleared deadline lost the description');
  await openEdit();
  check((await deadlineBox().inputValue()) === '', `the cleared deadline shows "${await deadlineBox().inputValue()}"`);
  check(!(await field('Deadline').count()), 'a job without a deadline shows one in its summary');
  await page.getByRole('button', { name: 'Back to jobs' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  await page.locator(`tr[data-job-id="${id}"]`).waitFor();
});

await step('a fixed-rate job run at most 2 times through the form fires 2 slots, then stays running with no next fire', async () => {
  const description = `e2e max fires ${stamp}`;
  const maxBox = () => page.getByLabel('Run at most N times (0: no limit)');
  const endBox = () => page.getByLabel('End time (empty for none)');
  await createJob({ description, handler: 'demo', kind: 'fixRate' });
  await page.getByLabel('Interval (seconds)').fill('1');
  check((await maxBox().inputValue()) === '0', `a new job's max fires is "${await maxBox().inputValue()}"`);
  check((await endBox().inputValue()) === '', `a new job's end time is "${await endBox().inputValue()}"`);
  check((await page.getByLabel('Start time (empty for none)').inputValue()) === '', 'a new job has a start time');
  await maxBox().fill('2');
  const end = new Date(Date.now() + 3600e3).toISOString().replace(/\.\d+Z$/, 'Z'); // RFC 3339, an hour from now
  await endBox().fill(end);
  await page.getByLabel('Running (fires on its schedule)').check();
  const id = await saveJobAndFindId(description);
  const created = await api('JobAdmin/GetJob', { jobId: id });
  check(created.maxFires === 2, `the form did not send maxFires 2: ${JSON.stringify(created.maxFires)}`);
  check(created.endTime && Date.parse(created.endTime) === Date.parse(end), `the form did not send endTime ${end}: ${JSON.stringify(created.endTime)}`);
  check(!created.startTime, `an empty start time was sent: ${JSON.stringify(created.startTime)}`);

  // Every second, twice: then no slot is left (firesLeft 0 is left out of the JSON) and it stays running.
  const pollUntil = Date.now() + 20_000;
  let job = created;
  while (job.firesLeft || job.nextFireTime) {
    check(Date.now() < pollUntil, `after 20 s the job has ${job.firesLeft ?? 0} fires left, next fire ${job.nextFireTime}`);
    await new Promise((res) => setTimeout(res, 250));
    job = await api('JobAdmin/GetJob', { jobId: id });
  }
  check(job.state === 'JOB_STATE_RUNNING', `a job with its fires spent is ${job.state}, not running`);

  await nav('Jobs').click();
  await page.getByRole('link', { name: `Edit job ${id}` }).click();
  await page.getByRole('heading', { name: `Edit job ${id}` }).waitFor();
  await page.locator('dl[aria-label="Job summary"]').waitFor();
  await page.waitForFunction((d) => document.querySelector(`input[value="${d}"]`), description);
  check((await field('Fires left').textContent()) === '0 of 2', `the job summary's fires left: "${await field('Fires left').textContent()}"`);
  // The browser runs in UTC, as fmtTime shows it.
  const endShown = new Date(end).toISOString().slice(0, 19).replace('T', ' ');
  check((await field('Runs until').textContent()) === endShown, `the job summary's end: "${await field('Runs until').textContent()}", not "${endShown}"`);
  check(!(await field('Runs from').count()), 'a job without a start time shows one in its summary');
  check((await field('Next fire').textContent()) === '—', `a spent job shows next fire "${await field('Next fire').textContent()}"`);
  check((await maxBox().inputValue()) === '2', `the edit form shows max fires "${await maxBox().inputValue()}"`);
  check(Date.parse(await endBox().inputValue()) === Date.parse(end), `the edit form shows end time "${await endBox().inputValue()}"`);
  await shot('job-max-fires');

  // Two more intervals: still exactly its 2 slots' runs.
  await page.waitForTimeout(2000);
  const runs = (await api('JobAdmin/ListRuns', { jobId: id, pageSize: 100 })).runs ?? [];
  check(runs.length === 2, `a job run at most 2 times has ${runs.length} runs: ${JSON.stringify(runs.map((r) => [r.id, r.triggerType, r.scheduledTime]))}`);
  await page.getByRole('button', { name: 'Back to jobs' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  await page.locator(`tr[data-job-id="${id}"]`).waitFor();
});

let backfillRuns;
await step('a backfill of the 3 days before today of the daily cron job creates 3 runs, found again by the trigger-type filter', async () => {
  await nav('Jobs').click();
  await page.getByRole('link', { name: `Edit job ${demoJob}` }).click();
  await page.getByRole('heading', { name: `Edit job ${demoJob}` }).waitFor();
  const form = page.getByRole('form', { name: `Backfill job ${demoJob}` });
  // The 3 whole UTC days before today hold exactly 3 slots (05:00 UTC); the browser runs in UTC.
  const local = (ms) => new Date(ms).toISOString().slice(0, 19);
  const today = Date.now() - (Date.now() % 86400e3);
  await form.getByLabel('Slots from').fill(local(today - 3 * 86400e3));
  await form.getByLabel('Slots before').fill(local(today));
  await form.getByLabel('Slots before').press('Enter'); // submits from the keyboard
  const list = page.getByRole('list', { name: 'Backfill runs' });
  await list.waitFor();
  const links = list.getByRole('link');
  check((await links.count()) === 3, `backfill of 3 daily slots lists ${await links.count()} runs`);
  backfillRuns = (await links.allTextContents()).map((t) => t.replace('Run #', ''));
  await shot('backfill');
  await page.getByRole('link', { name: 'Show backfill runs of this job' }).click();
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  check((await page.getByLabel('Trigger type').inputValue()) === 'TRIGGER_TYPE_BACKFILL', 'the runs filter is not set to backfill');
  for (const id of backfillRuns) await page.getByRole('link', { name: `Run ${id}`, exact: true }).waitFor();
  check(!(await page.getByRole('link', { name: `Run ${demoRun}`, exact: true }).count()), 'a manual run is listed under backfill');
  await shot('runs-backfill');
  await page.getByLabel('Trigger type').selectOption('TRIGGER_TYPE_MANUAL');
  await page.getByRole('link', { name: `Run ${demoRun}`, exact: true }).waitFor();
  await page.getByRole('link', { name: `Run ${backfillRuns[0]}`, exact: true }).waitFor({ state: 'detached' });
  await page.getByLabel('Trigger type').selectOption('');
});

await step('an admin edits a group into a manual one, sees its probe state, and deletes it after confirming', async () => {
  const app = `e2e-manual-${stamp}`;
  await nav('Executors').click();
  const create = page.getByRole('form', { name: 'Create group' });
  await create.getByLabel('App name').fill(app);
  await create.getByRole('button', { name: 'Create group' }).click();
  const section = page.getByRole('region', { name: `Group ${app}` });
  await section.waitFor();
  // Keyboard: Enter on the focused Edit button opens the form with the title focused.
  await page.getByRole('button', { name: `Edit group ${app}` }).focus();
  await page.keyboard.press('Enter');
  const edit = page.getByRole('form', { name: `Edit group ${app}` });
  check(await edit.getByLabel('Title').evaluate((el) => el === document.activeElement), 'the title is not focused');
  await page.keyboard.type('Manual e2e');
  await edit.getByRole('radio', { name: 'manual addresses' }).check();
  await edit.getByRole('textbox', { name: /^Addresses/ }).fill('127.0.0.1:1');
  await edit.getByRole('button', { name: 'Save group' }).click();
  await edit.waitFor({ state: 'detached' });
  await section.getByRole('heading', { name: /Manual e2e/ }).waitFor();
  // The scheduler probes manual addresses every 2 s: refresh until it has tried this one.
  const row = section.locator('tr[data-address="127.0.0.1:1"]');
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while (!/not answering/.test((await row.textContent().catch(() => '')) ?? '')) {
    check(Date.now() < deadline, `probe state of 127.0.0.1:1: "${await row.textContent().catch(() => '')}"`);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.waitForTimeout(500);
  }
  await shot('executors-manual');
  await page.getByRole('button', { name: `Delete group ${app}` }).click();
  await page.getByRole('button', { name: `Confirm delete group ${app}` }).click();
  await section.waitFor({ state: 'detached' });
});

await step('the dashboard shows lateness and duration percentiles once a fixed-rate job has fired', async () => {
  const job = await api('JobAdmin/CreateJob', {
    job: { groupId: GROUP, name: `e2e-rate-${stamp}`, description: `e2e rate ${stamp}`, bean: { handler: 'demo' }, schedule: { fixRate: '1s' } },
    start: true,
  });
  try {
    await nav('Dashboard').click();
    const lateness = page.locator('dd[data-field="Lateness"]');
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (;;) {
      await lateness.waitFor();
      if (/^\d+(\.\d+)? s \/ \d+(\.\d+)? s$/.test((await lateness.textContent()) ?? '')) break;
      check(Date.now() < deadline, `no lateness on the dashboard: "${await lateness.textContent()}"`);
      await page.waitForTimeout(500);
      await page.reload();
    }
    check(/ s \/ /.test(await page.locator('dd[data-field="Run duration"]').textContent()), 'no duration percentiles');
    await page.getByRole('img', { name: 'Lateness per day, p50 and p99' }).waitFor();
    await shot('dashboard-lateness');
    // A job fired by its schedule shows its last fire, in the table and on its page. The lateness
    // above may be an earlier job's (the max-fires one): wait until this one has fired and run.
    for (;;) {
      const j = await api('JobAdmin/GetJob', { jobId: job.id });
      if (j.lastFireTime && j.lastRun?.runId) break;
      check(Date.now() < deadline, `the fixed-rate job has not fired: ${JSON.stringify(j)}`);
      await new Promise((res) => setTimeout(res, 200));
    }
    await page.goto(`${URL_}/jobs?name=e2e-rate-${stamp}`);
    const row = page.locator(`tr[data-job-id="${job.id}"]`);
    await row.waitFor();
    const lastFire = await row.locator('td[data-label="Last fire"]').textContent();
    check(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(lastFire), `last fire of a fixed-rate job: "${lastFire}"`);
    await row.getByRole('link', { name: new RegExp(`^Last run of job ${job.id}: run \\d+, `) }).waitFor();
    await shot('jobs-last-fire');
    await page.getByRole('link', { name: `e2e-rate-${stamp}`, exact: true }).click();
    await page.locator('dl[aria-label="Job summary"]').waitFor();
    check(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(await field('Last fire').textContent()), `the job page's last fire: "${await field('Last fire').textContent()}"`);
    await field('Last run').getByRole('link').waitFor();
  } finally {
    await api('JobAdmin/StopJob', { jobId: job.id });
  }
});

await step('at phone width the jobs screen is usable with a menu button', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('button', { name: 'Menu' }).click();
  await nav('Jobs').click();
  await page.locator(`tr[data-job-id="${slowJob}"]`).waitFor();
  check(!(await nav('Runs').isVisible()), 'the menu stays open after navigating');
  await shot('jobs-phone');
  const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  await page.getByRole('link', { name: `Edit job ${parentJob}` }).click();
  await page.getByRole('list', { name: 'Child jobs' }).getByRole('checkbox').first().waitFor();
  check(await fits(), 'the job form is wider than a phone');
  await shot('job-form-phone');
  await page.getByRole('button', { name: 'Menu' }).click();
  await nav('Executors').click();
  await page.getByRole('button', { name: `Edit group console-app` }).click();
  await page.getByRole('form', { name: 'Edit group console-app' }).waitFor();
  check(await fits(), 'the executors screen is wider than a phone');
  await shot('executors-phone');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.setViewportSize({ width: 1280, height: 800 });
});

await step('the new user logs in with a password as an operator of its group: mutations, no Access or Audit', async () => {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('API token').waitFor();
  await page.getByRole('radio', { name: 'User and password' }).check();
  await page.getByLabel('User', { exact: true }).fill(OPERATOR);
  await page.getByLabel('Password', { exact: true }).fill('wrong password');
  await page.getByRole('button', { name: 'Log in' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  check(/^UNAUTHENTICATED: /.test(await alert.textContent()), `a wrong password shows: "${await alert.textContent()}"`);
  await page.getByLabel('Password', { exact: true }).fill(OPERATOR_PW);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  check((await page.getByLabel('Signed in as').textContent()).includes(OPERATOR), 'the header does not name the user');
  const navEl = page.getByRole('navigation', { name: 'Main' });
  check(!(await navEl.getByRole('link', { name: 'Access' }).count()), 'an operator sees Access');
  await nav('Jobs').click();
  await page.getByRole('button', { name: `Trigger job ${demoJob}` }).waitFor();
  await page.getByRole('link', { name: 'Create job' }).waitFor();
});

let viewerRun;
await step('after logging out, a viewer sees no mutation button on Jobs and Runs', async () => {
  viewerRun = (await api('JobAdmin/TriggerJob', { jobId: slowJob, params: '120000' })).runIds[0];
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('API token').waitFor();
  await login(VIEWER);
  const navEl = page.getByRole('navigation', { name: 'Main' });
  check(!(await navEl.getByRole('link', { name: 'Access' }).count()), 'viewer sees Access');
  check(!(await navEl.getByRole('link', { name: 'Audit' }).count()), 'viewer sees Audit');
  await nav('Jobs').click();
  await page.locator(`tr[data-job-id="${slowJob}"]`).waitFor();
  const mutations = /^(create job|trigger|start|stop|delete|edit|copy|kill)/i;
  for (const role of ['button', 'link']) {
    const names = await page.getByRole(role).evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') || e.textContent || '').trim()));
    const bad = names.filter((x) => mutations.test(x));
    check(bad.length === 0, `viewer sees ${role}s on Jobs: ${bad.join(', ')}`);
  }
  await page.getByRole('link', { name: `View job ${demoJob}` }).click();
  await page.waitForFunction(() => document.querySelector('input[value^="e2e cron demo"]'));
  check(!(await page.getByRole('button', { name: /save|create/i }).count()), 'viewer sees a save button on a job');
  check(await page.getByLabel('Handler').isDisabled(), 'viewer can edit a job form');
  await nav('Executors').click();
  await page.getByRole('cell', { name: /demo, .*slow/ }).first().waitFor();
  check(!(await page.getByRole('button', { name: /create group|rotate token/i }).count()), 'viewer sees group buttons');
  await nav('Runs').click();
  await page.getByRole('link', { name: `Run ${viewerRun}`, exact: true }).click();
  await waitStatus('running');
  await page.waitForFunction(() => /sleeping/.test(document.querySelector('pre.log')?.textContent ?? ''));
  check(!(await page.getByRole('button', { name: /kill/i }).count()), 'viewer sees a Kill button on a running run');
  await api('JobAdmin/KillRun', { runId: viewerRun });
  await waitStatus('failed');
});

await finish();
