/**
 * The fleet console (issue 32) in headless Chromium against a test stack: rollouts started from
 * the form, their progress moving as the agents report, paused by hand, the branches that failed
 * listed with their reasons (as text); then the list's filters and pages. The agents are real;
 * their installer is held by the test, so each step of a rollout is seen before the next.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishRelease } from '../../src/gateway/fleet/release-files.js';
import { signRelease, type ReleasePlatform } from '../../src/protocol/releases.js';
import { chromiumMissing, DESKTOP, expectNoSidewaysScroll, contrastProblems, launchChromium, openPage, PHONE, saveScreenshot, signIn } from './chromium.js';
import { newSecret } from '../../src/gateway/secrets.js';
import { API_KEY, BRANCH, startTestStack, STRICT_BRANCH, type TestStack } from '../support/stack.js';

const missing = chromiumMissing();
if (missing) console.log(`Fleet console browser tests skipped: ${missing}.`);

const REASON = 'disk full <b>C:</b> & <i>more</i>';
const WAIT = { timeout: 30_000 };

describe.skipIf(missing)(`the fleet console on a test stack${missing ? ' (skipped: see the line above)' : ''}`, () => {
  const keys = generateKeyPairSync('ed25519');
  const dir = mkdtempSync(path.join(tmpdir(), 'console-rollouts-'));
  /** Installers the agents handed a release to, waiting for the test to let them fail. */
  const held: Array<(reason: string) => void> = [];
  let stack: TestStack;
  let browser: Browser;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([
      startTestStack({
        agent: {
          upgrades: {
            publicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
            downloadDir: path.join(dir, 'downloads'),
            pollMs: 50,
            installer: (_tarball, _release, failed) => new Promise<void>((resolve) => held.push((reason) => (failed(reason), resolve()))),
          },
        },
      }),
      launchChromium(),
    ]);
    const tarball = randomBytes(64 * 1024);
    const file = path.join(dir, 'release-9.0.0.tar.gz');
    writeFileSync(file, tarball);
    const manifest = { version: '9.0.0', platform: process.platform as ReleasePlatform, sha256: createHash('sha256').update(tarball).digest('hex') };
    writeFileSync(`${file}.manifest.json`, JSON.stringify(signRelease(manifest, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString())));
    await publishRelease(stack.store, file);
  }, 180_000);

  afterAll(async () => {
    for (const release of held.splice(0)) release('the test ended');
    await browser?.close();
    await stack?.stop();
  }, 60_000);

  const counted = (page: Page, state: string) =>
    page
      .locator(`.progress .state-counts li[data-state="${state}"] strong`)
      .textContent({ timeout: 1_000 })
      .catch(() => null);

  it('starts a rollout from the form, shows it move, pauses it, and lists the failures with their reasons', async () => {
    const { page, errors } = await openPage(browser, DESKTOP);
    await signIn(page, stack.url, API_KEY);
    await page.getByRole('link', { name: 'Actualizaciones' }).click();
    await page.getByText('Aún no hay actualizaciones.').waitFor(WAIT);

    await page.getByText('Nueva actualización').click();
    await page.getByLabel('Versión publicada').fill('8.8.8');
    await page.getByRole('button', { name: 'Iniciar' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), WAIT).toBe('La versión 8.8.8 no está publicada en el gateway (branch-agent releases add).');

    await page.getByLabel('Versión publicada').fill('9.0.0');
    await page.getByLabel('Estas sucursales').check();
    await page.getByLabel(/Centro/).check();
    await page.getByLabel(/Norte/).check();
    await page.getByLabel('Pausar si fallan más del (%)').fill('100');
    await page.getByRole('button', { name: 'Iniciar' }).click();
    await page.getByRole('heading', { name: /Actualización a 9\.0\.0/ }).waitFor(WAIT);

    // Both agents download, check and hand the release to their installer, which the test holds.
    await expect.poll(() => counted(page, 'installing'), WAIT).toBe('2');
    expect(await page.locator('[data-rollout-state]').getAttribute('data-rollout-state')).toBe('running');
    await expect.poll(() => held.length, WAIT).toBe(2);

    await page.getByRole('button', { name: 'Pausar' }).click();
    await expect.poll(() => page.locator('[data-rollout-state]').getAttribute('data-rollout-state'), WAIT).toBe('paused');
    const id = page.url().split('/').at(-1)!;
    expect((await stack.api('GET', `/sucursales/actualizaciones/${id}`)).body.state).toBe('paused');

    // Those already installing carry on: here their installer gives up, each saying why.
    for (const release of held.splice(0)) release(REASON);
    await expect.poll(() => counted(page, 'failed'), WAIT).toBe('2');
    await expect.poll(() => page.locator('[data-rollout-state]').getAttribute('data-rollout-state'), WAIT).toBe('done');
    for (const licenseKey of [BRANCH, STRICT_BRANCH]) {
      const row = page.getByRole('region', { name: 'Fallidas o revertidas' }).locator(`tr[data-license-key="${licenseKey}"]`);
      expect(await row.locator('.reason').textContent()).toBe(REASON);
    }
    expect(await page.locator('main b, main i').count()).toBe(0);
    expect(await contrastProblems(page)).toEqual([]);
    expect(await saveScreenshot(page, 'rollout')).toBeGreaterThan(10_000);

    await page.getByRole('link', { name: 'Actualizaciones' }).first().click();
    const listed = page.locator(`tr[data-rollout="${id}"]`);
    await listed.waitFor(WAIT);
    expect(await listed.getAttribute('data-state')).toBe('done');
    expect(await listed.locator('li[data-state="failed"] strong').textContent()).toBe('2');

    // A share of the branches, inside a window that is not now: it waits, and shows what it was given.
    const hhmm = (hoursFromNow: number) => {
      const at = new Date(Date.now() + hoursFromNow * 3_600_000);
      return `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
    };
    const [desde, hasta] = [hhmm(2), hhmm(3)];
    await page.getByText('Nueva actualización').click();
    await page.getByLabel('Versión publicada').fill('9.0.0');
    await page.getByLabel('Un porcentaje de ellas').check();
    await page.getByLabel('Porcentaje', { exact: true }).fill('50');
    await page.getByLabel('Solo dentro de una ventana (hora de la sucursal)').check();
    await page.getByLabel('Desde', { exact: true }).fill(desde);
    await page.getByLabel('Hasta', { exact: true }).fill(hasta);
    await page.getByRole('button', { name: 'Iniciar' }).click();
    await page.getByRole('heading', { name: /Actualización a 9\.0\.0/ }).waitFor(WAIT);
    const second = page.url().split('/').at(-1)!;
    expect(second).not.toBe(id);
    const record = (await stack.api('GET', `/sucursales/actualizaciones/${second}`)).body;
    expect(record).toMatchObject({ state: 'running', ventana: { desde, hasta }, maxFallasPorcentaje: 20 });
    expect(record.branches).toHaveLength(1);
    await expect.poll(() => counted(page, 'pending'), WAIT).toBe('1');
    expect(await page.locator('.facts').textContent()).toContain(`${desde}–${hasta}`);
    await page.getByRole('button', { name: 'Pausar' }).click();
    await expect.poll(() => page.locator('[data-rollout-state]').getAttribute('data-rollout-state'), WAIT).toBe('paused');
    // The browser's report of the 422 the unpublished version got; nothing else went wrong.
    expect(errors.filter((e) => !/status of 422/.test(e))).toEqual([]);
    await page.context().close();
  }, 180_000);

  it('pages and filters the list as the API does, offline first', async () => {
    const owner = (await stack.store.branchOwner(BRANCH))!;
    const quiet = Array.from({ length: 30 }, (_, i) => `PAGE${String(i + 1).padStart(12, '0')}`);
    for (const [i, licenseKey] of quiet.entries()) await stack.store.upsertBranch(owner, licenseKey, newSecret('agt'), `Sin agente ${i + 1}`);
    const { page, errors } = await openPage(browser, DESKTOP);
    await signIn(page, stack.url, API_KEY);
    const rows = page.locator('table.branches tbody tr');
    await expect.poll(() => page.locator('caption').textContent(), WAIT).toBe('32 sucursales, las desconectadas primero');
    expect(await rows.count()).toBe(25);
    expect(await rows.first().getAttribute('data-license-key')).toBe(quiet[0]);
    expect(await rows.first().locator('.badge').textContent()).toBe('Nunca conectada');
    await page.getByRole('button', { name: 'Siguiente' }).click();
    await expect.poll(() => page.locator('.pager span').textContent(), WAIT).toBe('Página 2 de 2');
    await expect
      .poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-license-key'))), WAIT)
      .toEqual([...quiet.slice(25), BRANCH, STRICT_BRANCH]);

    await page.getByLabel('Estado').selectOption({ label: 'En línea' });
    await expect.poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-license-key'))), WAIT).toEqual([BRANCH, STRICT_BRANCH]);
    expect(await page.locator('.pager').count()).toBe(0);
    await page.getByLabel('Buscar').pressSequentially('nort');
    await expect.poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-license-key'))), WAIT).toEqual([STRICT_BRANCH]);
    await page.getByLabel('Versión del agente').fill('0.0.0-none');
    await page.getByText('Ninguna sucursal coincide.').waitFor(WAIT);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('fits a phone', async () => {
    const { page, errors } = await openPage(browser, PHONE);
    await signIn(page, stack.url, API_KEY);
    await page.getByRole('link', { name: 'Actualizaciones' }).click();
    await page.locator('tr[data-rollout]').first().waitFor(WAIT);
    await page.getByText('Nueva actualización').click();
    await page.getByLabel('Estas sucursales').check();
    await page.getByLabel(/Centro/).waitFor(WAIT);
    await expectNoSidewaysScroll(page);
    expect(await contrastProblems(page)).toEqual([]);
    await page.locator('tr[data-rollout] a').first().click();
    await page.getByRole('heading', { name: /Actualización a 9\.0\.0/ }).waitFor(WAIT);
    await expectNoSidewaysScroll(page);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);
});
