/**
 * The fleet console (issue 32) in headless Chromium against the demo `npm start` runs: signing
 * in, the three branches online, a stopped agent going offline within one heartbeat, hostile
 * text from a branch shown as text, English for an English browser, the keyboard alone, a phone,
 * readable contrast. Writes the README's screenshots into docs/console/.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HEARTBEAT_MS } from '../../src/agent/agent.js';
import { DEMO_BRANCHES, DEMO_KEYS, startDemo, type Demo } from '../../src/demo/demo.js';
import { waitForAgents } from '../../src/demo/stack.js';
import { until } from '../support/until.js';
import { chromiumMissing, contrastProblems, DESKTOP, expectNoSidewaysScroll, launchChromium, openPage, PHONE, saveScreenshot, signIn } from './chromium.js';
import { orderBody } from '../support/order-body.js';

const missing = chromiumMissing();
if (missing) console.log(`Fleet console browser tests skipped: ${missing}.`);

const [CENTRO, NORTE, PLAYA] = DEMO_BRANCHES.map((b) => b.licenseKey) as [string, string, string];
const KEY = DEMO_KEYS[0]!.key;
const HOSTILE = '<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script>';
/** Waits on a page: generous, for a loaded machine; each wait ends as soon as its condition holds. */
const WAIT = { timeout: 30_000 };

/** Opens an account through the API once the branch's agent watches its POS for changes: an event follows. */
async function openAnOrder(demo: Demo, licenseKey: string): Promise<void> {
  const pos = new pg.Client({ connectionString: demo.cluster.url(`pos_${licenseKey.toLowerCase()}`) });
  await pos.connect();
  try {
    // The agent's first poll only takes its baseline; changes before it are not events.
    await until(async () => (await pos.query('select 1 from ba_event_state limit 1')).rowCount === 1, 30_000, 100);
  } finally {
    await pos.end();
  }
  const res = await fetch(`${demo.stack.url}/temp_ordenes/${licenseKey}`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(orderBody({ mesa: '7', noPersonas: 2, idMesero: '01' })),
  });
  expect(res.status, await res.text()).toBe(201);
}

const row = (page: Page, licenseKey: string) => page.locator(`tr[data-license-key="${licenseKey}"]`);

describe.skipIf(missing)(`the fleet console on the demo${missing ? ' (skipped: see the line above)' : ''}`, () => {
  let demo: Demo;
  let browser: Browser;

  beforeAll(async () => {
    [demo, browser] = await Promise.all([startDemo({ host: '127.0.0.1', port: 0, log: pino({ level: 'silent' }) }), launchChromium()]);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  }, 60_000);

  it('refuses a wrong key and a key without the fleet scope, and keeps a good one out of the URL and of lasting storage', async () => {
    const { page, errors } = await openPage(browser, DESKTOP);
    await signIn(page, demo.stack.url, 'not-a-key');
    await expect.poll(() => page.getByRole('alert').textContent(), WAIT).toBe('La clave no es válida.');
    const owner = (await demo.stack.store.apiKeyOwner(KEY))!.userId;
    await demo.stack.store.addApiKey(owner, 'console-read-only-key', 'test', ['read']);
    await page.locator('input[name=key]').fill('console-read-only-key');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('alert').textContent(), WAIT).toBe('Esta clave no tiene el permiso «fleet».');

    await page.locator('input[name=key]').fill(KEY);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Sucursales', level: 1 }).waitFor(WAIT);
    expect(page.url()).not.toContain(KEY);
    expect(await page.evaluate(() => ({ session: Object.values(sessionStorage), local: localStorage.length, cookies: document.cookie }))).toEqual({
      session: [KEY],
      local: 0,
      cookies: '',
    });
    // A reload keeps the tab signed in; signing out forgets the key.
    await page.reload();
    await page.getByRole('heading', { name: 'Sucursales', level: 1 }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Salir' }).click();
    await page.locator('input[name=key]').waitFor(WAIT);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    // The browser's own report of the 401 and 403 answers; nothing else went wrong.
    expect(errors.filter((e) => !/status of 40[13]/.test(e))).toEqual([]);
    await page.context().close();
  }, 120_000);

  it("shows the demo's three branches online, each key its own, and takes the screenshots", async () => {
    // Some traffic, so the list and the branch have jobs, latencies and an event to show.
    for (let i = 0; i < 5; i++) {
      for (const licenseKey of [CENTRO, NORTE]) {
        const res = await fetch(`${demo.stack.url}/productos/${licenseKey}?pageSize=5`, { headers: { 'x-api-key': KEY } });
        expect(res.status).toBe(200);
      }
    }
    await openAnOrder(demo, CENTRO);
    const { page, errors } = await openPage(browser, DESKTOP);
    await signIn(page, demo.stack.url, KEY);
    for (const licenseKey of [CENTRO, NORTE]) {
      await row(page, licenseKey).and(page.locator('[data-online=true]')).waitFor(WAIT);
      expect(await row(page, licenseKey).locator('.badge').textContent()).toBe('En línea');
    }
    await expect.poll(() => row(page, CENTRO).locator('td[data-label="Trabajos 24 h"]').textContent(), WAIT).not.toBe('0');
    expect(await row(page, PLAYA).count()).toBe(0);
    expect(await page.locator('caption').textContent()).toBe('2 sucursales, las desconectadas primero');
    await expectNoSidewaysScroll(page);
    expect(await contrastProblems(page)).toEqual([]);
    expect(await saveScreenshot(page, 'branches')).toBeGreaterThan(10_000);

    await row(page, CENTRO).getByRole('link', { name: 'Sucursal Centro' }).click();
    await page.getByRole('heading', { name: 'Estado del agente' }).waitFor(WAIT);
    await page.locator('table.events td', { hasText: 'orden.abierta' }).waitFor(WAIT);
    expect(await page.locator('h1').textContent()).toBe('Sucursal Centro En línea');
    await expectNoSidewaysScroll(page);
    expect(await contrastProblems(page)).toEqual([]);
    expect(await saveScreenshot(page, 'branch')).toBeGreaterThan(10_000);
    expect(errors).toEqual([]);
    await page.context().close();

    const other = await openPage(browser, DESKTOP);
    await signIn(other.page, demo.stack.url, DEMO_KEYS[1]!.key);
    await row(other.page, PLAYA).and(other.page.locator('[data-online=true]')).waitFor(WAIT);
    expect(await other.page.locator('tbody tr').count()).toBe(1);
    await other.page.context().close();
  }, 120_000);

  it("shows what a branch sends as text: an agent's last error and a branch name that are HTML", async () => {
    const at = new Date().toISOString();
    demo.stack.agents.get(CENTRO)!.connection.send({ type: 'heartbeat', sentAt: at, posDatabase: 'ok', jobsRunning: 0, lastError: { message: HOSTILE, at } });
    await demo.stack.store.db.updateTable('gw_branches').set({ name: HOSTILE }).where('license_key', '=', NORTE).execute();
    try {
      const { page, errors } = await openPage(browser, DESKTOP);
      await signIn(page, demo.stack.url, KEY);
      await expect.poll(() => row(page, CENTRO).locator('.last-error .message').textContent(), WAIT).toBe(HOSTILE);
      await expect.poll(() => row(page, NORTE).locator('th a').textContent(), WAIT).toBe(HOSTILE);
      await row(page, CENTRO).getByRole('link').click();
      await expect.poll(() => page.locator('.facts .last-error .message').textContent(), WAIT).toBe(HOSTILE);
      expect(await page.locator('main img, main script').count()).toBe(0);
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(errors).toEqual([]);
      // Trusted Types (the page's CSP): no string becomes HTML in this page, whoever tries.
      const sink = await page.evaluate(() => {
        try {
          document.body.insertAdjacentHTML('beforeend', '<b>x</b>');
          return 'HTML accepted';
        } catch (error) {
          return (error as Error).name;
        }
      });
      expect(sink).toBe('TypeError');
      await page.context().close();
    } finally {
      await demo.stack.store.db.updateTable('gw_branches').set({ name: 'Sucursal Norte' }).where('license_key', '=', NORTE).execute();
    }
  }, 120_000);

  it('turns a stopped agent offline within one heartbeat, and back online when it returns', async () => {
    const { page } = await openPage(browser, DESKTOP);
    await signIn(page, demo.stack.url, KEY);
    await row(page, NORTE).and(page.locator('[data-online=true]')).waitFor(WAIT);
    await demo.stack.agents.get(NORTE)!.stop(2_000);
    const stopped = Date.now();
    await row(page, NORTE).and(page.locator('[data-online=false]')).waitFor({ timeout: DEFAULT_HEARTBEAT_MS });
    expect(Date.now() - stopped).toBeLessThanOrEqual(DEFAULT_HEARTBEAT_MS);
    expect(await row(page, NORTE).locator('.badge').textContent()).toBe('Desconectada');
    // Offline first, though its license key comes after Centro's.
    expect(await page.locator('tbody tr').first().getAttribute('data-license-key')).toBe(NORTE);

    await demo.stack.startAgent(NORTE);
    await waitForAgents(demo.stack, [NORTE]);
    await row(page, NORTE).and(page.locator('[data-online=true]')).waitFor(WAIT);
    await page.context().close();
  }, 120_000);

  it('speaks English to an English browser, on a phone, with the keyboard alone', async () => {
    const { page, errors } = await openPage(browser, { ...PHONE, locale: 'en-US' });
    await page.goto(`${demo.stack.url}/console`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor(WAIT);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    // The key field has the focus: type, Enter.
    await page.keyboard.type(KEY);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Branches', level: 1 }).waitFor(WAIT);
    await row(page, CENTRO).waitFor(WAIT);
    expect(await row(page, CENTRO).locator('.badge').textContent()).toBe('Online');
    await expectNoSidewaysScroll(page);
    expect(await contrastProblems(page)).toEqual([]);

    // Tab to the first branch's link and open it with Enter: its heading takes the focus.
    const link = row(page, CENTRO).getByRole('link');
    for (let i = 0; i < 20 && !(await link.evaluate((a) => a === document.activeElement)); i++) await page.keyboard.press('Tab');
    expect(await link.evaluate((a) => a === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Agent state' }).waitFor(WAIT);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await expectNoSidewaysScroll(page);
    expect(await contrastProblems(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);
});
