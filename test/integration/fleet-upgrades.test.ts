/**
 * Rollouts to installed agents, as real processes (issue 16, "Done when"): four branches, each
 * an agent installed from one built release under a prefix of its own (--manager background),
 * on its own PostgreSQL POS database, all connected to one real gateway. A tampered tarball and
 * one signed by another key are refused and the agent keeps running and serving; a rollout to
 * 50 % of the four upgrades exactly two; a rollout pauses itself once its failures pass its
 * threshold, and a branch that connects afterwards is not upgraded; an agent that runs as a
 * service hands over to the upgrade helper (played here by the test, as the systemd path unit
 * would start it), whose upgrade and whose refusal of a forged tarball both reach the rollout.
 * The release is built once and without the bundled runtime (the agents run on this test's
 * Node.js): install.test.ts covers the runtime, this file the fleet.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { publishRelease, signTarball } from '../../src/gateway/fleet/release-files.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { buildAgentRelease, stampRelease } from '../support/agent-release.js';
import { newGatewayDatabase, newPosDatabase } from '../support/databases.js';
import { endProcessesUnder } from '../support/processes.js';
import { until } from '../support/until.js';

const BRANCHES = ['TEST0000000000F1', 'TEST0000000000F2', 'TEST0000000000F3', 'TEST0000000000F4'] as const;
const API_KEY = 'fleet-upgrades-key';

interface Run {
  code: number | null;
  output: string;
}

interface Rollout {
  id: string;
  state: string;
  branches: Array<{ licenseKey: string; state: string; reason: string | null }>;
}

interface Branch {
  licenseKey: string;
  prefix: string;
  config: string;
  healthPort: number;
}

describe('rollouts to four installed agents', () => {
  let work: string;
  let store: GatewayStore;
  let gateway: Gateway;
  let gatewayUrl: string;
  const releases = new Map<string, string>();
  const branches: Branch[] = [];

  const run = (command: string, args: string[]): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(command, args, { cwd: work, env: { PATH: process.env.PATH, HOME: work }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  const install = (b: Branch) =>
    run(process.execPath, [
      path.join(releases.get('9.0.0')!, 'bin/branch-agent.js'),
      'service',
      'install',
      ...['--prefix', b.prefix, '--config', b.config, '--manager', 'background'],
      ...['--node', process.execPath, '--health-timeout', '30', '--settle', '1'],
    ]);
  const pidOf = (b: Branch): number | undefined => {
    const file = path.join(b.prefix, 'run/branch-agent.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
  };
  const downloaded = (b: Branch) =>
    existsSync(path.join(path.dirname(b.config), 'downloads')) ? readdirSync(path.join(path.dirname(b.config), 'downloads')) : [];
  const current = (b: Branch) => readlinkSync(path.join(b.prefix, 'current'));
  const health = async (b: Branch) => {
    const res = await fetch(`http://127.0.0.1:${b.healthPort}/healthz`, { signal: AbortSignal.timeout(2_000) });
    return { status: res.status, version: ((await res.json()) as { version: string }).version };
  };
  const api = async <T>(method: string, url: string, body?: unknown) => {
    const res = await fetch(`${gatewayUrl}${url}`, {
      method,
      headers: { 'x-api-key': API_KEY, ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const connectedVersion = (b: Branch) => gateway.hub.agentFor(b.licenseKey)?.agentVersion;
  const start = async (body: Record<string, unknown>) => {
    const res = await api<Rollout>('POST', '/sucursales/actualizaciones', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const rolloutOf = async (id: string) => (await api<Rollout>('GET', `/sucursales/actualizaciones/${id}`)).body;
  const settled = async (id: string, done: (r: Rollout) => boolean, timeoutMs = 60_000) => {
    await until(async () => done(await rolloutOf(id)), timeoutMs, 250);
    return rolloutOf(id);
  };

  /** Still the version it ran (A): connected, healthy, and a request through the gateway runs on its POS database. */
  const keepsRunning = async (b: Branch, version = '9.0.0') => {
    expect(current(b)).toBe(`releases/${version}`);
    expect(await health(b)).toEqual({ status: 200, version });
    expect(connectedVersion(b)).toBe(version);
    expect((await api<{ online: boolean }>('GET', `/sucursales/${b.licenseKey}`)).body).toMatchObject({ online: true, agentVersion: version });
    const served = await api<{ data: unknown[] }>('GET', `/estaciones/${b.licenseKey}`);
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect(served.body.data.length).toBeGreaterThan(0);
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'branch-agent-fleet-'));
    const built = buildAgentRelease(work);
    for (const v of ['9.0.0', '9.0.1', '9.0.2']) releases.set(v, stampRelease(built.dir, path.join(work, 'releases', `branch-agent-${v}-linux`), v));
    const tarballOf = (v: string) => path.join(work, `branch-agent-${v}-linux.tar.gz`);
    for (const v of ['9.0.1', '9.0.2'])
      expect((await run('tar', ['-czf', tarballOf(v), '-C', path.join(work, 'releases'), `branch-agent-${v}-linux`])).code).toBe(0);
    const tarball = tarballOf('9.0.1');

    store = new GatewayStore(await newGatewayDatabase());
    await store.migrate();
    const owner = await store.ensureUser('chain');
    await store.addApiKey(owner, API_KEY, 'ops', ['read', 'fleet']);
    const trusted = generateKeyPairSync('ed25519');
    const keyFile = path.join(work, 'release.key');
    const publicKeyFile = path.join(work, 'release.pub');
    writeFileSync(keyFile, trusted.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(publicKeyFile, trusted.publicKey.export({ type: 'spki', format: 'pem' }));
    const otherKeyFile = path.join(work, 'other.key');
    writeFileSync(otherKeyFile, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));

    // 9.0.1 and 9.0.2 real upgrades; 9.0.3 signed, but the store serves other bytes; 9.0.4 signed
    // by a key the agents do not trust. Those two are 9.0.1's bytes: only the checks differ.
    for (const v of ['9.0.1', '9.0.2']) {
      await signTarball(tarballOf(v), v, 'linux', keyFile);
      await publishRelease(store, tarballOf(v), { publicKeyFile });
    }
    const publish = async (v: string, signWith: string) => {
      const copy = path.join(work, `branch-agent-${v}-linux.tar.gz`);
      cpSync(tarball, copy);
      await signTarball(copy, v, 'linux', signWith);
      await publishRelease(store, copy);
    };
    await publish('9.0.3', keyFile);
    await publish('9.0.4', otherKeyFile);
    await store.db
      .updateTable('gw_release_chunks')
      .set({ data: Buffer.from('tampered') })
      .where('version', '=', '9.0.3')
      .where('seq', '=', 0)
      .execute();

    gateway = await buildGateway({ store, log: pino({ level: 'silent' }), webhookKey: randomBytes(32) });
    gatewayUrl = (await gateway.app.listen({ host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');

    for (const [i, licenseKey] of BRANCHES.entries()) {
      const token = `agt_fleet_${i}`;
      await store.upsertBranch(owner, licenseKey, token, `Sucursal ${i + 1}`);
      const b: Branch = {
        licenseKey,
        prefix: path.join(work, `prefix-${i}`),
        config: path.join(work, `etc-${i}`, 'config.json'),
        healthPort: await freePort(),
      };
      mkdirSync(path.dirname(b.config), { recursive: true });
      const agent = {
        licenseKey,
        gatewayUrl,
        token,
        database: await newPosDatabase(),
        health: { host: '127.0.0.1', port: b.healthPort },
        log: { level: 'info' },
        upgrades: { publicKeyFile, healthTimeoutSeconds: 20 },
      };
      writeFileSync(b.config, JSON.stringify({ agent }, null, 2));
      branches.push(b);
    }
  }, 300_000);

  afterAll(async () => {
    // The agents the installer and the remote upgrades started: no handle of ours holds them.
    if (work) await endProcessesUnder(work);
    await gateway?.app.close();
    await store?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('installs version A at four branches, all online', async () => {
    const results = await Promise.all(branches.map(install));
    for (const r of results) expect(r.code, r.output).toBe(0);
    await until(() => branches.every((b) => connectedVersion(b) === '9.0.0'), 60_000, 100);
    const fleet = await api<{ data: Array<{ licenseKey: string; online: boolean; agentVersion: string }> }>('GET', '/sucursales');
    expect(fleet.body.data.map((i) => [i.licenseKey, i.online, i.agentVersion]).sort()).toEqual(BRANCHES.map((k) => [k, true, '9.0.0']));
  }, 120_000);

  it('refuses a tampered tarball and one signed by another key; A keeps running and serving', async () => {
    const [tamperedAt, unsignedAt] = branches;
    const tampered = await start({ version: '9.0.3', licenseKeys: [tamperedAt!.licenseKey] });
    const unsigned = await start({ version: '9.0.4', licenseKeys: [unsignedAt!.licenseKey] });
    const [t, u] = await Promise.all([settled(tampered.id, (r) => r.state === 'done'), settled(unsigned.id, (r) => r.state === 'done')]);
    expect(t.branches[0]!.state).toBe('failed');
    expect(t.branches[0]!.reason).toMatch(/^the downloaded tarball's sha256 [0-9a-f]{64} is not the signed [0-9a-f]{64}$/);
    expect(u.branches[0]).toMatchObject({ state: 'failed', reason: 'release 9.0.4 is not signed by the key in upgrades.publicKeyFile' });
    const pids = [pidOf(tamperedAt!), pidOf(unsignedAt!)];
    for (const b of [tamperedAt!, unsignedAt!]) {
      await keepsRunning(b);
      expect(existsSync(path.join(b.prefix, 'releases/9.0.3')) || existsSync(path.join(b.prefix, 'releases/9.0.4'))).toBe(false);
    }
    // Nothing of either is kept in the agent's download folder.
    for (const b of [tamperedAt!, unsignedAt!]) expect(downloaded(b).filter((f) => /9\.0\.[34]/.test(f))).toEqual([]);
    expect([pidOf(tamperedAt!), pidOf(unsignedAt!)]).toEqual(pids);
  }, 90_000);

  it('upgrades exactly two of four branches in a rollout to 50 %', async () => {
    const rollout = await start({ version: '9.0.1', porcentaje: 50 });
    expect(rollout.branches).toHaveLength(2);
    const ended = await settled(rollout.id, (r) => r.state !== 'running', 120_000);
    expect(ended.branches.map((b) => b.state)).toEqual(['done', 'done']);
    const chosen = new Set(ended.branches.map((b) => b.licenseKey));
    for (const b of branches) {
      const version = chosen.has(b.licenseKey) ? '9.0.1' : '9.0.0';
      expect(current(b), b.licenseKey).toBe(`releases/${version}`);
      expect(await health(b)).toEqual({ status: 200, version });
    }
    await until(() => branches.every((b) => connectedVersion(b) === (chosen.has(b.licenseKey) ? '9.0.1' : '9.0.0')), 30_000, 100);
  }, 150_000);

  it('pauses once its failures pass the threshold: a branch that connects afterwards is not upgraded', async () => {
    const [failing, offline] = branches.filter((b) => connectedVersion(b) === '9.0.0');
    process.kill(pidOf(offline!)!, 'SIGTERM');
    await until(() => connectedVersion(offline!) === undefined, 20_000, 100);

    const rollout = await start({ version: '9.0.3', licenseKeys: [failing!.licenseKey, offline!.licenseKey], maxFallasPorcentaje: 40 });
    const paused = await settled(rollout.id, (r) => r.state !== 'running');
    expect(paused.state).toBe('paused');
    const stateOf = (r: Rollout, b: Branch) => r.branches.find((x) => x.licenseKey === b.licenseKey)!;
    expect(stateOf(paused, failing!)).toMatchObject({ state: 'failed' });
    expect(stateOf(paused, offline!)).toMatchObject({ state: 'pending', reason: null });

    const again = await install(offline!);
    expect(again.code, again.output).toBe(0);
    await until(() => connectedVersion(offline!) === '9.0.0', 30_000, 100);
    // Time for an offer that a paused rollout must not make.
    await sleep(1_500);
    const later = await rolloutOf(rollout.id);
    expect(later.state).toBe('paused');
    expect(stateOf(later, offline!)).toMatchObject({ state: 'pending', reason: null });
    await keepsRunning(offline!);
    await keepsRunning(failing!);
  }, 120_000);

  it('hands over to the upgrade helper when it runs as a service: carried out, or refused and reported', async () => {
    const [kept, forged] = branches.filter((b) => connectedVersion(b) === '9.0.1') as [Branch, Branch];
    // systemd sets INVOCATION_ID in every unit it runs: the agent takes it as the sign that it runs
    // as a service, and requests the upgrade instead of starting the installer. The background
    // process reads branch-agent.env at every start, as the systemd unit does.
    for (const b of [kept, forged]) {
      writeFileSync(path.join(path.dirname(b.config), 'branch-agent.env'), 'INVOCATION_ID=fleet-upgrades-test\n');
      const again = await run(process.execPath, [
        path.join(b.prefix, 'current/bin/branch-agent.js'),
        'service',
        'install',
        ...['--prefix', b.prefix, '--config', b.config, '--manager', 'background', '--settle', '1'],
      ]);
      expect(again.code, again.output).toBe(0);
    }
    await until(() => connectedVersion(kept) === '9.0.1' && connectedVersion(forged) === '9.0.1', 30_000, 100);

    const rollout = await start({ version: '9.0.2', licenseKeys: [kept.licenseKey, forged.licenseKey], maxFallasPorcentaje: 100 });
    // What branch-agent-upgrade.path does: start the helper once a request appears. Before that,
    // the forged branch's tarball is changed, as anyone who can write the download folder could.
    const helped = await Promise.all(
      [kept, forged].map(async (b) => {
        const requestFile = path.join(path.dirname(b.config), 'downloads', 'upgrade-request.json');
        await until(() => existsSync(requestFile), 60_000, 100);
        if (b === forged) appendFileSync((JSON.parse(readFileSync(requestFile, 'utf8')) as { tarball: string }).tarball, 'forged');
        return run(process.execPath, [
          path.join(b.prefix, 'current/bin/branch-agent.js'),
          'service',
          'upgrade-request',
          ...['--prefix', b.prefix, '--config', b.config, '--manager', 'background', '--settle', '1'],
        ]);
      }),
    );
    expect(helped[0]!.code, helped[0]!.output).toBe(0);
    expect(helped[1]!.code, helped[1]!.output).toBe(1);

    const ended = await settled(rollout.id, (r) => r.state !== 'running', 90_000);
    const stateOf = (b: Branch) => ended.branches.find((x) => x.licenseKey === b.licenseKey)!;
    expect(stateOf(kept)).toMatchObject({ state: 'done', reason: null });
    expect(stateOf(forged).state).toBe('failed');
    expect(stateOf(forged).reason).toMatch(
      /^upgrade request refused: the sha256 of .*branch-agent-9\.0\.2-linux\.tar\.gz is [0-9a-f]{64}, not the signed [0-9a-f]{64}$/,
    );
    expect(current(kept)).toBe('releases/9.0.2');
    expect(await health(kept)).toEqual({ status: 200, version: '9.0.2' });
    await keepsRunning(forged, '9.0.1');
  }, 150_000);
});
