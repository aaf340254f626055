// What every browser test of the console shares: its environment, a chromium
// page (Debian's, through playwright-core), numbered steps that stop the test
// at the first failure with a screenshot, and a few helpers.
// Env: GNOMON_URL (gnomond serving the built console), GNOMON_ADMIN_TOKEN, GNOMON_VIEWER_TOKEN,
// GNOMON_GROUP_ID (a group with the sample executor online), SCREENSHOT_DIR, CHROMIUM (optional).
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { chromium } from 'playwright-core';

const env = (k) => {
  const v = process.env[k];
  if (!v) fail(`environment variable ${k} is not set`);
  return v;
};
export function fail(msg) {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
}

export const URL_ = env('GNOMON_URL').replace(/\/$/, '');
export const ADMIN = env('GNOMON_ADMIN_TOKEN');
export const VIEWER = env('GNOMON_VIEWER_TOKEN');
export const GROUP = env('GNOMON_GROUP_ID');
export const SHOTS = env('SCREENSHOT_DIR');
mkdirSync(SHOTS, { recursive: true });
export const STEP_TIMEOUT_MS = 30_000;
export const stamp = Date.now().toString(36);
/** The spec running ("console" for console.e2e.mjs): names its failure screenshot. */
const spec = basename(process.argv[1] ?? 'console', '.e2e.mjs');

export const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' });
export const page = await context.newPage();
page.setDefaultTimeout(STEP_TIMEOUT_MS);
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));

let n = 0;
export async function step(name, fn) {
  n++;
  const t0 = Date.now();
  let timer;
  try {
    await Promise.race([
      fn(),
      new Promise((_, rej) => (timer = setTimeout(() => rej(new Error(`timed out after ${STEP_TIMEOUT_MS * 2} ms`)), STEP_TIMEOUT_MS * 2))),
    ]);
  } catch (e) {
    const failure = spec === 'console' ? 'failure.png' : `${spec}-failure.png`;
    await page.screenshot({ path: join(SHOTS, failure), fullPage: true }).catch(() => {});
    if (consoleErrors.length) console.error(`page errors:\n${consoleErrors.join('\n')}`);
    await browser.close().catch(() => {});
    fail(`step ${n} "${name}": ${e instanceof Error ? e.message : e}`);
  } finally {
    clearTimeout(timer);
  }
  console.log(`ok ${n} - ${name} (${Date.now() - t0} ms)`);
}

/** Closes the browser; fails if the page threw. */
export async function finish() {
  await browser.close();
  if (consoleErrors.length) fail(`errors in the page:\n${consoleErrors.join('\n')}`);
  console.log(`all ${n} steps passed; screenshots in ${SHOTS}`);
}

export function check(cond, msg) {
  if (!cond) throw new Error(msg);
}
export const shot = (name) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** A direct API call with the admin token (test set-up only, never to check the console). */
export async function api(method, body) {
  const res = await fetch(`${URL_}/v1/${method}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const j = await res.json();
  if (!res.ok) throw new Error(`${method}: ${j.code}: ${j.message}`);
  return j;
}

export async function login(token) {
  await page.goto(`${URL_}/`);
  await page.getByRole('heading', { name: 'gnomon console' }).waitFor();
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
}

export const nav = (name) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
export const field = (label) => page.locator('dd[data-field="' + label + '"]');
