// End-to-end test of a job paused after N consecutive failures (issue #32) in a real browser:
// the form's setting, a failing fixed-rate job the server pauses, its badge and reason on the
// job page and in the list, what a viewer sees, and Resume (StartJob) on the page and in the list.
// Env: see harness.mjs. Exits 1 with a message at the first failed step.
import { ADMIN, api, check, field, finish, GROUP, login, page, shot, step, STEP_TIMEOUT_MS, stamp, URL_, VIEWER } from './harness.mjs';

const text = async (label) => ((await field(label).textContent()) ?? '').trim();
/** Waits until the details field `label` reads `want`. */
const fieldIs = (label, want) =>
  page.waitForFunction(([l, t]) => document.querySelector(`dd[data-field="${l}"]`)?.textContent?.trim() === t, [label, want]);
const pauseBox = () => page.getByLabel('Pause after N consecutive failures (0: never)');

async function openJob(id, heading = `Edit job ${id}`) {
  await page.goto(`${URL_}/jobs/${id}/edit`);
  await page.getByRole('heading', { name: heading }).waitFor();
  await page.locator('dl[aria-label="Job summary"]').waitFor();
}

async function logInAs(token) {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('API token').waitFor();
  await login(token);
}

// ---------------------------------------------------------------------------------------------
await step('the job form sets "pause after N consecutive failures" on create, shows it on edit and clears it', async () => {
  await login(ADMIN);
  await page.goto(`${URL_}/jobs/new`);
  await page.getByRole('heading', { name: 'Create job' }).waitFor();
  const description = `e2e pause form ${stamp}`;
  await page.getByLabel('Group').selectOption(GROUP);
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`e2e-pause-form-${stamp}`);
  await page.getByLabel('Handler').fill('fail');
  await page.getByLabel('Description').fill(description);
  await page.getByLabel('Schedule type').selectOption('manual');
  check((await pauseBox().inputValue()) === '0', `a new job's pause setting is "${await pauseBox().inputValue()}"`);
  await pauseBox().fill('3');
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  const row = page.locator('tr', { hasText: description });
  await row.waitFor();
  const id = await row.getAttribute('data-job-id');
  check((await api('JobAdmin/GetJob', { jobId: id })).pauseAfterFailures === 3, 'the form did not send pauseAfterFailures 3');

  await openJob(id);
  check((await pauseBox().inputValue()) === '3', `the edit form shows "${await pauseBox().inputValue()}"`);
  check((await text('Failures in a row')) === '0 of 3', `failures in a row: "${await text('Failures in a row')}"`);
  await pauseBox().fill('0');
  await page.getByRole('button', { name: 'Save job' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  check(!(await api('JobAdmin/GetJob', { jobId: id })).pauseAfterFailures, 'saving 0 did not clear pauseAfterFailures');
  await openJob(id);
  check(!(await field('Failures in a row').count()), 'a job that never pauses shows its failures in a row');
  await api('JobAdmin/DeleteJob', { jobId: id });
});

let job, reason;
await step('a fixed-rate job whose handler fails, set to pause after 2 failures, is paused: its page says why', async () => {
  job = await api('JobAdmin/CreateJob', {
    job: {
      groupId: GROUP,
      name: `e2e-pause-${stamp}`,
      description: `e2e pause ${stamp}`,
      bean: { handler: 'fail' },
      schedule: { fixRate: '1s' },
      pauseAfterFailures: 2,
    },
    start: true,
  });
  check(job.state === 'JOB_STATE_RUNNING' && job.pauseAfterFailures === 2, `CreateJob answered ${JSON.stringify(job)}`);
  await openJob(job.id);
  // The page shows the job as loaded: load it again until the server has paused it.
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while ((await text('State')) !== 'paused') {
    check(Date.now() < deadline, `the job is not paused: its page says "${await text('State')}"; GetJob: ${JSON.stringify(await api('JobAdmin/GetJob', { jobId: job.id }))}`);
    await page.waitForTimeout(500);
    await page.reload();
    await page.locator('dl[aria-label="Job summary"]').waitFor();
  }
  reason = await text('Paused');
  check(/^paused after 2 consecutive failures; the last, run \d+: .*failed on purpose/.test(reason), `the reason shown: "${reason}"`);
  check((await field('State').locator('.badge').getAttribute('title')) === reason, 'the badge\'s tooltip is not the reason');
  check((await text('Failures in a row')) === '2 of 2', `failures in a row: "${await text('Failures in a row')}"`);
  check((await pauseBox().inputValue()) === '2', 'the form does not show the setting');
  await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();
  await shot('job-paused');
});

await step('the jobs list, filtered to paused jobs, shows it paused with the reason as the tooltip, and offers Resume', async () => {
  await page.goto(`${URL_}/jobs?name=e2e-pause-${stamp}&state=JOB_STATE_PAUSED`);
  const row = page.locator(`tr[data-job-id="${job.id}"]`);
  await row.waitFor();
  const badge = row.locator('td[data-label="State"] .badge');
  check((await badge.textContent()) === 'paused', `the list's state: "${await badge.textContent()}"`);
  check((await badge.getAttribute('title')) === reason, `the list's tooltip: "${await badge.getAttribute('title')}"`);
  await row.getByRole('button', { name: `Resume job ${job.id}`, exact: true }).waitFor();
  await row.getByRole('button', { name: `Stop job ${job.id}`, exact: true }).waitFor();
  check(!(await row.getByRole('button', { name: `Start job ${job.id}`, exact: true }).count()), 'a paused job offers Start');
  check((await page.locator('tr[data-job-id]').count()) === 1, 'the paused filter lists other jobs');
  await shot('jobs-paused');
});

await step('a viewer sees the paused job and why, but no Resume', async () => {
  await logInAs(VIEWER);
  await openJob(job.id, `Job ${job.id}`);
  check((await text('State')) === 'paused', `a viewer sees "${await text('State')}"`);
  check((await text('Paused')) === reason, 'a viewer does not see the reason');
  check(!(await page.getByRole('button', { name: /resume/i }).count()), 'a viewer sees Resume');
  await logInAs(ADMIN);
});

await step('Resume on the job page starts it again: running, without the reason, its count back to 0', async () => {
  await openJob(job.id);
  check((await text('State')) === 'paused', `before Resume the page says "${await text('State')}"`);
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  // The page shows StartJob's answer: the job as resumed.
  await fieldIs('State', 'running');
  check(!(await field('Paused').count()), 'a resumed job still shows a reason');
  check((await text('Failures in a row')) === '0 of 2', `failures in a row after Resume: "${await text('Failures in a row')}"`);
  check(!(await page.getByRole('button', { name: 'Resume', exact: true }).count()), 'a running job offers Resume');
  check(await page.getByRole('checkbox', { name: /^Running/ }).isChecked(), 'the form does not show the job running');
  await shot('job-resumed');
});

await step('still failing, it is paused again, and Resume in the list starts it again', async () => {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  while ((await api('JobAdmin/GetJob', { jobId: job.id })).state !== 'JOB_STATE_PAUSED') {
    check(Date.now() < deadline, 'the resumed job is not paused again');
    await new Promise((res) => setTimeout(res, 300));
  }
  await page.goto(`${URL_}/jobs?name=e2e-pause-${stamp}`);
  const row = page.locator(`tr[data-job-id="${job.id}"]`);
  await row.getByRole('button', { name: `Resume job ${job.id}`, exact: true }).click();
  // The list loads again after StartJob: running (it pauses again only after 2 more fires).
  await row.locator('td[data-label="State"] .badge', { hasText: 'running' }).waitFor();
  await row.getByRole('button', { name: `Stop job ${job.id}`, exact: true }).waitFor();
  check(!(await row.getByRole('button', { name: `Resume job ${job.id}`, exact: true }).count()), 'a resumed job offers Resume');
  await api('JobAdmin/StopJob', { jobId: job.id }); // It would go on failing.
});

await finish();
