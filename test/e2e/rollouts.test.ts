/**
 * Releases and rollouts through the whole stack (issue 16): publishing, the agent's download
 * with its token, its checks of signature and hash, waiting for the job under way, windows,
 * shares, conflicts and pausing.
 * The installer's hand-over itself, and these cases again on installed agents, run with real
 * processes in test/integration/install.test.ts and fleet-upgrades.test.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishRelease } from '../../src/gateway/fleet/release-files.js';
import { newSecret } from '../../src/gateway/secrets.js';
import { signRelease, type ReleasePlatform } from '../../src/protocol/releases.js';
import { VERSION } from '../../src/version.js';
import { withTerminal } from '../support/databases.js';
import { orderBody } from '../support/order-body.js';
import { until } from '../support/until.js';
import { BRANCH, OTHER_API_KEY, OTHER_USERS_BRANCH, startTestStack, STRICT_BRANCH, type TestStack } from '../support/stack.js';

const trusted = generateKeyPairSync('ed25519');
const untrusted = generateKeyPairSync('ed25519');
const pem = (key: typeof trusted.privateKey) => key.export({ type: key.type === 'private' ? 'pkcs8' : 'spki', format: 'pem' }).toString();
const platform = process.platform as ReleasePlatform;
const dir = mkdtempSync(join(tmpdir(), 'rollouts-'));
const downloads = join(dir, 'downloads');
const OFFLINE = ['TEST0000000000A1', 'TEST0000000000A2'] as const;
const isOffline = (key: string) => (OFFLINE as readonly string[]).includes(key);

let stack: TestStack;
const tarball = randomBytes(2 * 1024 * 1024 + 123);

async function publish(version: string, privateKey = trusted.privateKey): Promise<void> {
  const file = join(dir, `release-${version}.tar.gz`);
  writeFileSync(file, tarball);
  const manifest = signRelease({ version, platform, sha256: createHash('sha256').update(tarball).digest('hex') }, pem(privateKey));
  writeFileSync(`${file}.manifest.json`, JSON.stringify(manifest));
  await publishRelease(stack.store, file);
}

beforeAll(async () => {
  stack = await startTestStack({
    agent: {
      connection: { backoffBaseMs: 20, backoffMaxMs: 200 },
      upgrades: {
        publicKey: pem(trusted.publicKey),
        downloadDir: downloads,
        pollMs: 50,
        installer: () => Promise.reject(new Error('the installer was reached')),
      },
    },
  });
  const owner = (await stack.store.branchOwner(BRANCH))!;
  for (const key of OFFLINE) await stack.store.upsertBranch(owner, key, newSecret('agt'), 'sin agente');
  await publish('9.0.0');
  await publish('9.0.1', untrusted.privateKey);
  await publish('9.0.2');
  // What a compromised store would serve: bytes that are not the signed ones.
  await stack.store.db
    .updateTable('gw_release_chunks')
    .set({ data: Buffer.from('tampered') })
    .where('version', '=', '9.0.2')
    .where('seq', '=', 1)
    .execute();
  await publish(VERSION);
});

afterAll(async () => {
  await stack?.stop();
});

interface Rollout {
  id: string;
  state: string;
  branches: Array<{ licenseKey: string; state: string; reason: string | null; fromVersion: string | null }>;
  counts: Record<string, number>;
}

async function start(body: Record<string, unknown>, expected = 201): Promise<Rollout & Record<string, unknown>> {
  const res = await stack.api('POST', '/sucursales/actualizaciones', { body, headers: { 'idempotency-key': randomUUID() } });
  expect(res.status, res.text).toBe(expected);
  return res.body as Rollout & Record<string, unknown>;
}

async function settle(id: string, done: (r: Rollout) => boolean): Promise<Rollout> {
  const until = Date.now() + 10_000;
  for (;;) {
    const res = await stack.api('GET', `/sucursales/actualizaciones/${id}`);
    expect(res.status, res.text).toBe(200);
    const rollout = res.body as Rollout;
    if (done(rollout) || Date.now() > until) return rollout;
    await sleep(50);
  }
}

const branchOf = (r: Rollout, key: string) => r.branches.find((b) => b.licenseKey === key)!;

describe('starting a rollout', () => {
  it('refuses a release that is not published, a foreign branch and a body that says two things', async () => {
    expect((await start({ version: '8.8.8' }, 422)).code).toBe('release_not_found');
    expect((await start({ version: '9.0.0', licenseKeys: [OTHER_USERS_BRANCH] }, 403)).code).toBe('branch_forbidden');
    expect((await start({ version: '9.0.0', licenseKeys: [BRANCH], porcentaje: 50 }, 400)).code).toBe('validation_failed');
    expect((await start({ version: '9.0.0', ventana: { desde: '02:00', hasta: '02:00' } }, 400)).code).toBe('validation_failed');
    expect(await stack.store.db.selectFrom('gw_rollouts').selectAll().execute()).toEqual([]);
  });

  it('is a write: it takes an Idempotency-Key, and a retry answers the same rollout without starting another (seed)', async () => {
    const body = { version: '9.0.0', licenseKeys: [OFFLINE[1]] };
    const post = (headers: Record<string, string>, sent: unknown = body) => stack.api('POST', '/sucursales/actualizaciones', { body: sent, headers });
    const rollouts = async () => (await stack.store.db.selectFrom('gw_rollouts').select('id').execute()).map((r) => r.id);

    const missing = await post({});
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('idempotency_key_missing');
    expect(await rollouts()).toEqual([]);

    const key = randomUUID();
    const first = await post({ 'idempotency-key': key });
    expect(first.status, first.text).toBe(201);
    const again = await post({ 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await rollouts()).toEqual([first.body.id]);

    const reused = await post({ 'idempotency-key': key }, { ...body, version: '9.0.2' });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(await rollouts()).toEqual([first.body.id]);
    await stack.store.db.deleteFrom('gw_rollouts').execute();
  });

  it('picks a share of the branches, rounded up: 50 % of four is two', async () => {
    const rollout = await start({ version: '9.0.0', porcentaje: 50 });
    expect(rollout.branches).toHaveLength(2);
    // Connected agents are told at once and go as far as the installer; the others wait for their hello.
    const final = ['done', 'failed', 'rolled_back'];
    const again = await settle(rollout.id, (r) => r.branches.every((b) => isOffline(b.licenseKey) || final.includes(b.state)));
    for (const b of again.branches) {
      expect(b).toMatchObject(isOffline(b.licenseKey) ? { state: 'pending' } : { state: 'failed', reason: 'the installer was reached' });
    }
    await stack.store.db.deleteFrom('gw_rollouts').execute();
  });
});

describe('an agent told to upgrade', () => {
  it('downloads with its token, checks the hash and hands the tarball to the installer', async () => {
    const rollout = await start({ version: '9.0.0', licenseKeys: [BRANCH] });
    expect(rollout.branches).toEqual([expect.objectContaining({ licenseKey: BRANCH, fromVersion: VERSION })]);
    const ended = await settle(rollout.id, (r) => r.state === 'done');
    expect(branchOf(ended, BRANCH)).toMatchObject({ state: 'failed', reason: 'the installer was reached' });
    const file = join(downloads, `branch-agent-9.0.0-${platform}.tar.gz`);
    expect(existsSync(file)).toBe(true);
    expect(existsSync(join(downloads, `upgrade-attempt-${BRANCH}.json`))).toBe(false);
  });

  it('refuses a release signed by another key, before downloading it', async () => {
    const rollout = await start({ version: '9.0.1', licenseKeys: [BRANCH] });
    const ended = await settle(rollout.id, (r) => r.state === 'done');
    expect(branchOf(ended, BRANCH)).toMatchObject({ state: 'failed', reason: 'release 9.0.1 is not signed by the key in upgrades.publicKeyFile' });
    expect(readdirSync(downloads).some((f) => f.includes('9.0.1'))).toBe(false);
    expect(stack.gateway.hub.agentFor(BRANCH)?.agentVersion).toBe(VERSION);
  });

  it('refuses a tarball whose bytes are not the signed ones, and keeps none of it', async () => {
    const rollout = await start({ version: '9.0.2', licenseKeys: [BRANCH] });
    const ended = await settle(rollout.id, (r) => r.state === 'done');
    expect(branchOf(ended, BRANCH).state).toBe('failed');
    expect(branchOf(ended, BRANCH).reason).toMatch(/^the downloaded tarball's sha256 [0-9a-f]{64} is not the signed [0-9a-f]{64}$/);
    expect(readdirSync(downloads).some((f) => f.includes('9.0.2'))).toBe(false);
  });

  it('waits for the job under way before it hands over, and the job commits', async () => {
    const created = await stack.api('POST', `/temp_ordenes/${BRANCH}`, {
      body: orderBody({ serie: 'A', mesa: '', idMesero: '01', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }),
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(created.status, created.text).toBe(201);
    const folio = created.body.folio as number;
    let rollout!: Rollout;
    let stateWhileHeld = '';
    // A terminal holds the account's row, so the agent's job adding a line waits on it.
    const { job } = await withTerminal(stack.posConfigs.get(BRANCH)!, async (trx) => {
      await trx.updateTable('tempcheques').set({ observaciones: 'en caja' }).where('folio', '=', folio).execute();
      const job = stack.api('POST', `/temp_ordenes/${BRANCH}/${folio}/productos`, {
        body: { productos: [{ movimiento: 1, idProducto: '1005', cantidad: 1 }] },
        headers: { 'idempotency-key': randomUUID() },
      });
      await until(() => stack.agents.get(BRANCH)!.runner.running === 1, 5_000);
      rollout = await start({ version: '9.0.0', licenseKeys: [BRANCH] });
      await settle(rollout.id, (r) => branchOf(r, BRANCH).state === 'downloading');
      // Downloaded in a moment; twenty polls later it still waits for the job.
      await sleep(1_000);
      stateWhileHeld = branchOf(await settle(rollout.id, () => true), BRANCH).state;
      // Wrapped: returning the promise itself would keep the terminal's transaction open until the job ends.
      return { job };
    });
    expect(stateWhileHeld).toBe('downloading');
    const added = await job;
    expect(added.status, added.text).toBe(200);
    const ended = await settle(rollout.id, (r) => r.state === 'done');
    expect(branchOf(ended, BRANCH)).toMatchObject({ state: 'failed', reason: 'the installer was reached' });
    const lines = await stack.pos.get(BRANCH)!.db.selectFrom('tempcheqdet').select('idproducto').where('foliodet', '=', folio).execute();
    expect(lines.map((l) => l.idproducto?.trim()).sort()).toEqual(['1005', '3001']);
  });

  it('reports done when it already runs the version', async () => {
    const rollout = await start({ version: VERSION, licenseKeys: [STRICT_BRANCH] });
    const ended = await settle(rollout.id, (r) => r.state === 'done');
    expect(branchOf(ended, STRICT_BRANCH)).toMatchObject({ state: 'done', reason: null });
  });
});

describe('a rollout with failures', () => {
  it('pauses past its share of failures; a later rollout takes over the branches it had not reached', async () => {
    const rollout = await start({ version: '9.0.1', licenseKeys: [BRANCH, OFFLINE[0]], maxFallasPorcentaje: 40 });
    const paused = await settle(rollout.id, (r) => r.state === 'paused');
    expect(paused.state).toBe('paused');
    expect(branchOf(paused, OFFLINE[0]).state).toBe('pending');
    const next = await start({ version: '9.0.0', licenseKeys: [OFFLINE[0]] });
    expect(next.branches.map((b) => b.licenseKey)).toEqual([OFFLINE[0]]);
    expect((await settle(rollout.id, () => true)).branches.map((b) => b.licenseKey)).toEqual([BRANCH]);
  });

  it('a branch in an unfinished rollout cannot join another', async () => {
    const res = await start({ version: '9.0.0', licenseKeys: [OFFLINE[0]] }, 409);
    expect(res.code).toBe('rollout_conflict');
  });
});

describe('listing and pausing', () => {
  it("lists the user's rollouts newest first with their counts, without their branches", async () => {
    const res = await stack.api('GET', '/sucursales/actualizaciones?pageSize=2');
    expect(res.status, res.text).toBe(200);
    const stored = await stack.store.db.selectFrom('gw_rollouts').select(['id', 'created_at']).orderBy('created_at', 'desc').orderBy('id').execute();
    expect(res.body).toMatchObject({ page: 1, pageSize: 2, totalResults: stored.length, hasNextPage: stored.length > 2 });
    expect(res.body.data.map((r: Rollout) => r.id)).toEqual(stored.slice(0, 2).map((r) => r.id));
    for (const listed of res.body.data as Array<Rollout & Record<string, unknown>>) {
      const whole = (await stack.api('GET', `/sucursales/actualizaciones/${listed.id}`)).body;
      const { branches: _branches, ...summary } = whole;
      expect(listed).toEqual(summary);
    }
    expect((await stack.api('GET', '/sucursales/actualizaciones', { key: OTHER_API_KEY })).status).toBe(403);
    const other = (await stack.store.apiKeyOwner(OTHER_API_KEY))!.userId;
    await stack.store.addApiKey(other, 'other-fleet-key', 'test', ['fleet']);
    expect((await stack.api('GET', '/sucursales/actualizaciones', { key: 'other-fleet-key' })).body).toMatchObject({ totalResults: 0, data: [] });
  });

  it('pauses a running rollout by hand: its branches not yet reached go free, and a paused or ended one is left as it is', async () => {
    const rollout = await start({ version: '9.0.0', licenseKeys: [OFFLINE[1]] });
    expect(rollout.state).toBe('running');
    const pause = (id: string, key?: string) => stack.api('POST', `/sucursales/actualizaciones/${id}/pausa`, key ? { key } : {});
    const paused = await pause(rollout.id);
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body).toMatchObject({ id: rollout.id, state: 'paused', branches: [{ licenseKey: OFFLINE[1], state: 'pending' }] });
    expect((await pause(rollout.id)).body.state).toBe('paused');
    expect((await pause(rollout.id, 'other-fleet-key')).body.code).toBe('rollout_not_found');
    expect((await pause('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    // Its branch was not reached: a new rollout takes it over, as from a rollout paused by its failures.
    const next = await start({ version: VERSION, licenseKeys: [OFFLINE[1]] });
    expect(next.branches.map((b) => b.licenseKey)).toEqual([OFFLINE[1]]);

    const done = await start({ version: VERSION, licenseKeys: [STRICT_BRANCH] });
    await settle(done.id, (r) => r.state === 'done');
    const refused = await pause(done.id);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('rollout_conflict');
    expect((await settle(done.id, () => true)).state).toBe('done');
  });
});

describe('the maintenance window', () => {
  it('holds the upgrade outside the window, in branch time', async () => {
    const now = new Date();
    const hhmm = (d: Date) => `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
    const ventana = { desde: hhmm(new Date(now.getTime() + 2 * 3_600_000)), hasta: hhmm(new Date(now.getTime() + 3 * 3_600_000)) };
    const rollout = await start({ version: '9.0.0', licenseKeys: [STRICT_BRANCH], ventana });
    expect(rollout.ventana).toEqual(ventana);
    await sleep(500);
    expect(branchOf(await settle(rollout.id, () => true), STRICT_BRANCH).state).toBe('pending');
  });
});

describe('GET /agent/releases', () => {
  it("serves a release to an agent's token only", async () => {
    const url = `${stack.url}/agent/releases/9.0.0/${platform}`;
    expect((await fetch(url)).status).toBe(401);
    const res = await fetch(url, { headers: { authorization: `Bearer ${stack.agentTokens.get(BRANCH)}` } });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(tarball)).toBe(true);
    expect(
      (await fetch(`${stack.url}/agent/releases/1.2.3/${platform}`, { headers: { authorization: `Bearer ${stack.agentTokens.get(BRANCH)}` } })).status,
    ).toBe(422);
  });
});
