// End-to-end test of alarm channels in a real browser: the Alarm channels page creates a Slack
// channel posting to a receiver this test runs on loopback (gnomond runs with
// --alarm-webhook-allow=127.0.0.1), shows its url's origin and never the secret or the url's
// path, Test delivers a POST with a JSON "text", an edit that leaves url and secret empty keeps
// them; the job form names it (alarm on both, a silence) and the job shows it; a viewer only
// reads channels; deleting one a job names is refused with the server's reason.
// Env: see harness.mjs. Exits 1 with a message at the first failed step.
import { createServer } from 'node:http';
import { ADMIN, api, check, field, finish, GROUP, login, nav, page, shot, stamp, step, URL_, VIEWER } from './harness.mjs';

const CH = `e2e-alarm-${stamp}`;
const TOKEN_PATH = `/services/e2e/${stamp}-hook-token`;
const SECRET = `e2e-secret-${stamp}`;

// The receiver: every request's method, path and body; answers as Slack does.
const posts = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    posts.push({ method: req.method, path: req.url, body });
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const ORIGIN = `http://127.0.0.1:${receiver.address().port}`;
// What the API shows of the url: its origin, "/..." for the path.
const SHOWN = `${ORIGIN}/...`;

const row = () => page.locator(`tr[data-alarm-channel="${CH}"]`);
const cell = (label) => row().locator(`td[data-label="${label}"]`);

async function logInAs(token) {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('API token').waitFor();
  await login(token);
}

/** Clicks Test on the channel's row; the status line it shows. */
async function testChannel() {
  const before = posts.length;
  await page.getByRole('button', { name: `Test alarm channel ${CH}`, exact: true }).click();
  const status = page.getByRole('status').filter({ hasText: `Test of ${CH}:` });
  await status.waitFor();
  return { text: await status.textContent(), received: posts.slice(before) };
}

// ---------------------------------------------------------------------------------------------
await step('an admin creates a Slack channel; the page shows its origin, never its secret or path', async () => {
  await login(ADMIN);
  await nav('Alarm channels').click();
  await page.getByRole('heading', { name: 'Alarm channels' }).waitFor();
  await page.getByRole('button', { name: 'New alarm channel' }).click();
  const form = page.getByRole('form', { name: 'Create alarm channel' });
  await form.getByLabel(/^Channel name/).fill(CH);
  await form.getByRole('combobox', { name: /^Kind/ }).selectOption('SLACK');
  check(!(await form.getByLabel(/^Chat ID/).count()), 'a Slack channel is asked for a chat id');
  await form.getByLabel(/^Webhook URL/).fill(`${ORIGIN}${TOKEN_PATH}`);
  const secret = form.getByLabel(/^Secret/);
  check((await secret.getAttribute('type')) === 'password', 'the secret is not a password box');
  await secret.fill(SECRET);
  await form.getByLabel(/^Message template/).fill('{{job_name}} {{nope}}');
  await form.getByRole('button', { name: 'Create alarm channel' }).click();
  const alert = form.getByRole('alert');
  await alert.waitFor();
  check(/^INVALID_ARGUMENT: channel\.template/.test(await alert.textContent()), `a bad template shows: "${await alert.textContent()}"`);
  await form.getByLabel(/^Message template/).fill('{{job_name}}: {{reason}}');
  await form.getByRole('button', { name: 'Create alarm channel' }).click();
  await row().waitFor();
  check((await cell('Kind').textContent()) === 'Slack', `kind shown: "${await cell('Kind').textContent()}"`);
  check((await cell('URL').textContent()) === SHOWN, `url shown: "${await cell('URL').textContent()}"`);
  check((await cell('Secret').textContent()) === 'stored', `secret shown: "${await cell('Secret').textContent()}"`);
  check((await cell('Template').textContent()) === 'custom', `template shown: "${await cell('Template').textContent()}"`);
  const html = await page.content();
  check(!html.includes(SECRET) && !html.includes(TOKEN_PATH), 'the page shows the secret or the url path');
  const c = await api('JobAdmin/GetAlarmChannel', { name: CH });
  check(c.kind === 'SLACK' && c.url === SHOWN && c.hasSecret === true && !c.secret, `the channel as the API shows it: ${JSON.stringify(c)}`);
  await shot('alarm-channels');
});

await step('Test delivers a POST with the text to the receiver', async () => {
  const { text, received } = await testChannel();
  check(text === `Test of ${CH}: delivered.`, `the test shows: "${text}"`);
  check(received.length === 1 && received[0].method === 'POST' && received[0].path === TOKEN_PATH, `the receiver got: ${JSON.stringify(received)}`);
  check(typeof JSON.parse(received[0].body).text === 'string', `the body has no "text": ${received[0].body}`);
  check(!received[0].body.includes(SECRET), 'the message carries the secret');
});

await step('editing with the url and secret left empty keeps them', async () => {
  await page.getByRole('button', { name: `Edit alarm channel ${CH}`, exact: true }).click();
  const form = page.getByRole('form', { name: `Edit alarm channel ${CH}` });
  check(await form.getByLabel(/^Channel name/).evaluate((e) => e.readOnly), 'the name of a channel can be edited');
  check((await form.getByLabel(/^Webhook URL/).inputValue()) === '', 'the edit form shows a url');
  check((await form.getByLabel(/^Secret/).inputValue()) === '', 'the edit form shows a secret');
  check((await form.getByText(/empty keeps the stored secret/).count()) === 1, 'the form does not say an empty secret is kept');
  check((await form.getByLabel(/^Message template/).inputValue()) === '{{job_name}}: {{reason}}', 'the edit form lost the template');
  await form.getByLabel(/^Message template/).fill('');
  await form.getByRole('button', { name: 'Save alarm channel' }).click();
  await page.getByRole('status').filter({ hasText: `Saved alarm channel ${CH}.` }).waitFor();
  // The list is read again after the save.
  await row().locator('td[data-label="Template"]', { hasText: /^default$/ }).waitFor();
  check((await cell('Secret').textContent()) === 'stored', 'the edit dropped the secret');
  const c = await api('JobAdmin/GetAlarmChannel', { name: CH });
  check(!c.template && c.hasSecret === true && c.url === SHOWN, `the channel after the edit: ${JSON.stringify(c)}`);
  const { text, received } = await testChannel();
  check(text === `Test of ${CH}: delivered.` && received[0]?.path === TOKEN_PATH, `after the edit the test shows "${text}", posted ${JSON.stringify(received)}`);
});

let jobId;
await step('the job form names the channel, alarm on both and a silence; the job shows them', async () => {
  await nav('Jobs').click();
  await page.getByRole('link', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: 'Create job' }).waitFor();
  const description = `e2e alarm channel job ${stamp}`;
  await page.getByLabel('Group').selectOption(GROUP);
  await page.getByRole('textbox', { name: 'Name', exact: true }).fill(`e2e-alarm-job-${stamp}`);
  await page.getByLabel('Handler').fill('demo');
  await page.getByLabel(/^Description/).fill(description);
  await page.getByLabel('Schedule type').selectOption('manual');
  const channels = page.getByRole('listbox', { name: /^Alarm channels/ });
  await channels.locator(`option[value="${CH}"]`).waitFor({ state: 'attached' });
  await channels.selectOption([CH]);
  const on = page.getByRole('combobox', { name: /^Alarm on/ });
  check((await on.inputValue()) === 'ALARM_ON_FAILURE', 'a new job does not alarm on failure');
  await on.selectOption('ALARM_ON_BOTH');
  await page.getByLabel(/^Alarm silence/).fill('600');
  await shot('job-form-alarm-channel');
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.getByRole('heading', { name: 'Jobs' }).waitFor();
  const jobRow = page.locator('tr', { hasText: description });
  await jobRow.waitFor();
  jobId = await jobRow.getAttribute('data-job-id');
  const job = await api('JobAdmin/GetJob', { jobId });
  check(
    job.alarm?.channels?.length === 1 && job.alarm.channels[0] === CH && job.alarm.on === 'ALARM_ON_BOTH' && job.alarm.silence === '600s',
    `the alarm sent: ${JSON.stringify(job.alarm)}`,
  );
  // The job's page shows them, and its form has them again.
  await page.goto(`${URL_}/jobs/${jobId}/edit`);
  await page.getByRole('heading', { name: `Edit job ${jobId}` }).waitFor();
  await field('Alarm channels').waitFor();
  const shown = await field('Alarm channels').textContent();
  check(shown === `${CH} · on both · silence 600 s`, `the job summary shows: "${shown}"`);
  await page.waitForFunction((c) => document.querySelector('select[multiple] option[value="' + c + '"]')?.selected === true, CH);
  check((await page.getByRole('combobox', { name: /^Alarm on/ }).inputValue()) === 'ALARM_ON_BOTH', 'the edit form does not show alarm on both');
  check((await page.getByLabel(/^Alarm silence/).inputValue()) === '600', 'the edit form does not show the silence');
});

await step('a viewer sees the channels but no button to change or test them', async () => {
  await logInAs(VIEWER);
  await nav('Alarm channels').click();
  await row().waitFor();
  check((await cell('URL').textContent()) === SHOWN, 'a viewer sees another url');
  check(!(await page.getByRole('button', { name: /new alarm channel|edit alarm channel|delete alarm channel|test alarm channel/i }).count()), 'a viewer sees channel buttons');
  await logInAs(ADMIN);
});

await step('deleting the channel while the job names it is refused with the reason; once the job is gone it is deleted', async () => {
  await nav('Alarm channels').click();
  await row().waitFor();
  await page.getByRole('button', { name: `Delete alarm channel ${CH}`, exact: true }).click();
  await page.getByRole('button', { name: `Confirm delete alarm channel ${CH}` }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  const text = await alert.textContent();
  check(/^FAILED_PRECONDITION: /.test(text) && text.includes(`alarm channel '${CH}' is named by job ${jobId}`), `deleting a channel in use shows: "${text}"`);
  check((await row().count()) === 1, 'the refused channel left the list');
  await shot('alarm-channel-delete-refused');
  await api('JobAdmin/DeleteJob', { jobId });
  await page.getByRole('button', { name: `Delete alarm channel ${CH}`, exact: true }).click();
  await page.getByRole('button', { name: `Confirm delete alarm channel ${CH}` }).click();
  await row().waitFor({ state: 'detached' });
  await page.getByRole('status').filter({ hasText: `Deleted alarm channel ${CH}.` }).waitFor();
});

receiver.close();
await finish();
