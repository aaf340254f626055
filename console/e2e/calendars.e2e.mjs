// End-to-end test of calendars in a real browser: the Calendars page creates one (weekday boxes,
// an excluded date, a window; a bad window refused naming it) and edits it, the job form names it
// (and a jitter) and its preview skips the excluded date, a viewer only reads them, and deleting
// one a job names is refused with the server's reason.
// Env: see harness.mjs. Exits 1 with a message at the first failed step.
import { ADMIN, api, check, finish, GROUP, login, nav, page, shot, stamp, step, URL_, VIEWER } from './harness.mjs';

const CAL = `e2e-cal-${stamp}`;
const DAY = 86_400_000;
const pad = (n) => String(n).padStart(2, '0');
const ymd = (t) => new Date(t).toISOString().slice(0, 10);

// A daily cron at an hour at least 5 hours away (no race with "now"), its first two fires, and
// the date of the second, which the calendar excludes.
const hour = (new Date().getUTCHours() + 6) % 24;
const CRON = `0 0 ${hour} * * ?`;
const first = (() => {
  const now = Date.now();
  const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate(), hour);
  return today > now ? today : today + DAY;
})();
const EXCLUDED = ymd(first + DAY);
const at = (t) => `${ymd(t)} ${pad(hour)}:00:00`;

const row = () => page.locator(`tr[data-calendar="${CAL}"]`);
const cell = (label) => row().locator(`td[data-label="${label}"]`);

async function logInAs(token) {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('API token').waitFor();
  await login(token);
}

// ---------------------------------------------------------------------------------------------
await step('an admin creates a calendar on the Calendars page; a bad window is refused naming it', async () => {
  await login(ADMIN);
  await nav('Calendars').click();
  await page.getByRole('heading', { name: 'Calendars' }).waitFor();
  await page.getByRole('button', { name: 'New calendar' }).click();
  const form = page.getByRole('form', { name: 'Create calendar' });
  await form.getByLabel(/^Calendar name/).fill(CAL);
  await form.getByLabel(/^Description/).fill(`e2e calendar ${stamp}`);
  await form.getByLabel(/^Calendar time zone/).fill('UTC');
  for (const d of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']) await form.getByRole('checkbox', { name: d, exact: true }).check();
  await form.getByLabel(/^Excluded dates/).fill(EXCLUDED);
  await form.getByLabel(/^Windows/).fill('00:00-12:00\n25:00-26:00');
  await form.getByRole('button', { name: 'Create calendar' }).click();
  const alert = form.getByRole('alert');
  await alert.waitFor();
  check(/^INVALID_ARGUMENT: calendar\.windows\[1\]/.test(await alert.textContent()), `a bad window shows: "${await alert.textContent()}"`);
  await shot('calendar-refused');
  await form.getByLabel(/^Windows/).fill('00:00-24:00');
  await form.getByRole('button', { name: 'Create calendar' }).click();
  await row().waitFor();
  check((await cell('Weekdays').textContent()) === 'Mon, Tue, Wed, Thu, Fri, Sat, Sun', `weekdays shown: "${await cell('Weekdays').textContent()}"`);
  check((await cell('Excluded').textContent()) === '1', `excluded shown: "${await cell('Excluded').textContent()}"`);
  check((await cell('Windows').textContent()) === '00:00-24:00', `windows shown: "${await cell('Windows').textContent()}"`);
  const c = await api('JobAdmin/GetCalendar', { name: CAL });
  check(c.weekdays?.length === 7 && c.weekdays[0] === 'MONDAY', `the weekdays sent: ${JSON.stringify(c.weekdays)}`);
  check(c.excludedDates?.[0] === EXCLUDED && c.timeZone === 'UTC', `the calendar sent: ${JSON.stringify(c)}`);
  await shot('calendars');
});

await step('editing it replaces what the form changes and keeps the rest', async () => {
  await page.getByRole('button', { name: `Edit calendar ${CAL}`, exact: true }).click();
  const form = page.getByRole('form', { name: `Edit calendar ${CAL}` });
  check(await form.getByLabel(/^Calendar name/).evaluate((e) => e.readOnly), 'the name of a calendar can be edited');
  check((await form.getByLabel(/^Excluded dates/).inputValue()) === EXCLUDED, 'the form does not show the excluded date');
  await form.getByLabel(/^Description/).fill(`e2e calendar ${stamp}, edited`);
  await form.getByRole('button', { name: 'Save calendar' }).click();
  await page.getByRole('status').filter({ hasText: `Saved calendar ${CAL}.` }).waitFor();
  const c = await api('JobAdmin/GetCalendar', { name: CAL });
  check(c.description === `e2e calendar ${stamp}, edited`, `the description after the edit: "${c.description}"`);
  check(c.excludedDates?.[0] === EXCLUDED && c.weekdays?.length === 7 && c.windows?.[0] === '00:00-24:00', `the edit lost a field: ${JSON.stringify(c)}`);
});

let jobId;
await step("the job form names the calendar and a jitter; its preview skips the calendar's excluded date", async () => {
  await nav('Jobs').click();
  await page.getByRole('link', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: 'Create job' }).waitFor();
  const description = `e2e calendar job ${stamp}`;
  await page.getByLabel('Group').selectOption(GROUP);
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`e2e-cal-job-${stamp}`);
  await page.getByLabel('Handler').fill('demo');
  await page.getByLabel(/^Description/).fill(description);
  await page.getByLabel('Schedule type').selectOption('cron');
  await page.getByLabel('Cron expression').fill(CRON);
  await page.getByLabel('Time zone').fill('UTC');
  const calendar = page.getByRole('combobox', { name: /^Calendar/ });
  check((await calendar.inputValue()) === '', 'a new job names a calendar');
  // Without the calendar the excluded date is the second fire.
  await page.waitForFunction((t) => document.querySelectorAll('ol[aria-label="Next fire times"] li')[1]?.textContent?.startsWith(t), at(first + DAY));
  await calendar.selectOption(CAL);
  await page.getByLabel('Jitter (seconds, empty for none)').fill('30');
  const skipped = page.getByRole('list', { name: 'Skipped by the calendar' });
  await skipped.waitFor();
  const skippedRows = await skipped.getByRole('listitem').allTextContents();
  check(skippedRows.length === 1 && skippedRows[0].startsWith(at(first + DAY)), `skipped: ${JSON.stringify(skippedRows)}`);
  const fires = await page.locator('ol[aria-label="Next fire times"] li').allTextContents();
  check(fires.length === 5, `the preview lists ${fires.length} fire times`);
  check(fires[0].startsWith(at(first)) && fires[1].startsWith(at(first + 2 * DAY)), `the fires: ${JSON.stringify(fires)}`);
  check(!fires.some((f) => f.startsWith(EXCLUDED)), `the preview fires on the excluded date: ${JSON.stringify(fires)}`);
  check((await page.getByText(`Skipped by calendar ${CAL} (1 between these):`).count()) === 1, 'the preview does not name the calendar');
  await shot('job-form-calendar');
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  const jobRow = page.locator('tr', { hasText: description });
  await jobRow.waitFor();
  jobId = await jobRow.getAttribute('data-job-id');
  check((await jobRow.locator('td[data-label="Schedule"]').textContent()).includes(`calendar ${CAL} · jitter 30s`), 'the jobs table does not show the calendar and jitter');
  const job = await api('JobAdmin/GetJob', { jobId });
  check(job.schedule?.calendar === CAL && job.schedule?.jitter === '30s', `the schedule sent: ${JSON.stringify(job.schedule)}`);
  // The edit form shows them again.
  await page.goto(`${URL_}/jobs/${jobId}/edit`);
  await page.getByRole('heading', { name: `Edit job ${jobId}` }).waitFor();
  await page.waitForFunction((c) => document.querySelector('select option[value="' + c + '"]')?.selected === true, CAL);
  check((await page.getByLabel('Jitter (seconds, empty for none)').inputValue()) === '30', 'the edit form does not show the jitter');
});

await step('a viewer sees the calendars but no button to change them', async () => {
  await logInAs(VIEWER);
  await nav('Calendars').click();
  await row().waitFor();
  check(!(await page.getByRole('button', { name: /new calendar|edit calendar|delete calendar/i }).count()), 'a viewer sees calendar buttons');
  await logInAs(ADMIN);
});

await step('deleting the calendar while the job names it is refused with the reason; once the job is gone it is deleted', async () => {
  await nav('Calendars').click();
  await row().waitFor();
  await page.getByRole('button', { name: `Delete calendar ${CAL}`, exact: true }).click();
  await page.getByRole('button', { name: `Confirm delete calendar ${CAL}` }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  const text = await alert.textContent();
  check(/^FAILED_PRECONDITION: /.test(text) && text.includes(`'${CAL}' is named by job ${jobId}`), `deleting a calendar in use shows: "${text}"`);
  check((await row().count()) === 1, 'the refused calendar left the list');
  await shot('calendar-delete-refused');
  await api('JobAdmin/DeleteJob', { jobId });
  await page.getByRole('button', { name: `Delete calendar ${CAL}`, exact: true }).click();
  await page.getByRole('button', { name: `Confirm delete calendar ${CAL}` }).click();
  await row().waitFor({ state: 'detached' });
  await page.getByRole('status').filter({ hasText: `Deleted calendar ${CAL}.` }).waitFor();
});

await finish();
