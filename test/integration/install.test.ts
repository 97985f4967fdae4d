/**
 * service-install/install.sh for real, without systemd (--no-systemd): a release made by
 * scripts/make-release.sh, installed, upgraded, and upgraded to a release that cannot start,
 * which must be rolled back. The agent runs as a real background process on a real PostgreSQL
 * database; its gateway is a loopback port where nothing listens (the agent keeps retrying and
 * /healthz still answers).
 */
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { newPosDatabase } from '../support/databases.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BRANCH = 'TEST000000000001';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], opts: { cwd?: string; timeoutMs?: number } = {}): Promise<Run> {
  // Secrets and URLs from the caller's environment would override the test's config.
  const env = { ...process.env };
  for (const key of ['AGENT_TOKEN', 'POS_DB_PASSWORD', 'GATEWAY_URL', 'BRANCH_AGENT_CONFIG']) delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopProcess(pid: number): Promise<void> {
  if (!alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

describe('install.sh --no-systemd', () => {
  let work: string;
  let prefix: string;
  let configPath: string;
  let healthPort: number;
  const releases = new Map<string, string>();
  const pids = new Set<number>();

  const install = async (version: string, extra: string[] = []) => {
    const result = await run('bash', [
      path.join(releases.get(version)!, 'service-install/install.sh'),
      '--prefix',
      prefix,
      '--config',
      configPath,
      '--no-systemd',
      '--node',
      process.execPath,
      '--health-timeout',
      '30',
      '--settle',
      '1',
      ...extra,
    ]);
    const pid = agentPid();
    if (pid) pids.add(pid);
    return result;
  };
  const agentPid = (): number | undefined => {
    const file = path.join(prefix, 'run/branch-agent.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : undefined;
  };
  const current = () => readlinkSync(path.join(prefix, 'current'));
  const health = async () => {
    const res = await fetch(`http://127.0.0.1:${healthPort}/healthz`, { signal: AbortSignal.timeout(2_000) });
    return { status: res.status, body: (await res.json()) as { status: string; version: string } };
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'branch-agent-install-'));
    prefix = path.join(work, 'prefix');
    configPath = path.join(work, 'etc', 'config.json');

    // A release as a branch gets it, except node_modules: a link to this checkout's. dist/ is
    // reused when it is newer than every source file (type checking is `npm run typecheck`'s job).
    const reuse = existsSync(path.join(ROOT, 'dist/cli.js')) && statSync(path.join(ROOT, 'dist/cli.js')).mtimeMs > newestMtime(path.join(ROOT, 'src'));
    const built = await run(
      'bash',
      ['scripts/make-release.sh', '--out', path.join(work, 'build'), '--no-tarball', '--link-node-modules', reuse ? '--skip-build' : '--no-typecheck'],
      { timeoutMs: 120_000 },
    );
    expect(built.code, built.stderr + built.stdout).toBe(0);
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const base = path.join(work, 'build', `branch-agent-${version}`);
    for (const f of [
      'dist/cli.js',
      'dist/sql-migrations.js',
      'sql/postgres/agent',
      'bin/branch-agent.js',
      'service-install/install.sh',
      'service-install/branch-agent.service',
      'config.example.json',
      'package-lock.json',
    ]) {
      expect(existsSync(path.join(base, f)), f).toBe(true);
    }
    const migrate = await run(process.execPath, [path.join(base, 'bin/branch-agent.js'), 'migrate', '--help']);
    if (migrate.code !== 0) throw new Error(`the built CLI has no \`migrate\` command yet (src/cli.ts): ${migrate.stderr.trim()}`);

    const makeRelease = (v: string) => {
      const dir = path.join(work, 'releases', `branch-agent-${v}`);
      cpSync(base, dir, { recursive: true, verbatimSymlinks: true });
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...pkg, version: v }, null, 2));
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

    healthPort = await freePort();
    const gatewayPort = await freePort(); // nothing listens there
    mkdirSync(path.dirname(configPath), { recursive: true });
    writeFileSync(
      configPath,
      JSON.stringify(
        {
          agent: {
            licenseKey: BRANCH,
            gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
            token: 'agt_test',
            database: await newPosDatabase(),
            health: { host: '127.0.0.1', port: healthPort },
            log: { level: 'info' },
          },
        },
        null,
        2,
      ),
    );
  }, 150_000);

  afterAll(async () => {
    const pid = prefix ? agentPid() : undefined;
    if (pid) pids.add(pid);
    await Promise.all([...pids].map(stopProcess));
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('writes a config template and stops (exit 2) when the config does not exist yet', async () => {
    const fresh = path.join(work, 'fresh');
    const result = await run('bash', [
      path.join(releases.get('9.0.0')!, 'service-install/install.sh'),
      '--prefix',
      path.join(fresh, 'prefix'),
      '--config',
      path.join(fresh, 'etc', 'config.json'),
      '--no-systemd',
      '--node',
      process.execPath,
    ]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toMatch(/wrote a template to .*config\.json/);
    expect(result.stdout).toMatch(/run this install\.sh again/);
    const template = JSON.parse(readFileSync(path.join(fresh, 'etc', 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(template)).toEqual(['agent']);
    expect(existsSync(path.join(fresh, 'prefix', 'releases'))).toBe(false);
  });

  it('installs the first release: side by side layout, current, pid file, health', async () => {
    const configBefore = readFileSync(configPath, 'utf8');
    const result = await install('9.0.0');
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toMatch(/branch-agent 9\.0\.0 is installed and healthy/);

    expect(current()).toBe('releases/9.0.0');
    expect(realpathSync(path.join(prefix, 'current'))).toBe(realpathSync(path.join(prefix, 'releases/9.0.0')));
    expect(existsSync(path.join(prefix, 'releases/9.0.0/dist/cli.js'))).toBe(true);
    expect(existsSync(path.join(prefix, 'logs/branch-agent.log'))).toBe(true);
    const pid = agentPid();
    expect(pid && alive(pid)).toBe(true);
    expect(await health()).toMatchObject({ status: 200, body: { status: 'ok', version: '9.0.0' } });
    expect(readFileSync(configPath, 'utf8')).toBe(configBefore);
  }, 90_000);

  it('upgrades to the next release: old one kept, config untouched, new agent healthy', async () => {
    const configBefore = readFileSync(configPath, 'utf8');
    const configMtime = statSync(configPath).mtimeMs;
    const oldPid = agentPid()!;

    const result = await install('9.0.1');
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toMatch(/branch-agent 9\.0\.1 is installed and healthy \(previous: 9\.0\.0/);

    expect(current()).toBe('releases/9.0.1');
    expect(existsSync(path.join(prefix, 'releases/9.0.0/dist/cli.js'))).toBe(true);
    expect(existsSync(path.join(prefix, 'releases/9.0.1/dist/cli.js'))).toBe(true);
    expect(readFileSync(configPath, 'utf8')).toBe(configBefore);
    expect(statSync(configPath).mtimeMs).toBe(configMtime);

    const pid = agentPid()!;
    expect(pid).not.toBe(oldPid);
    expect(alive(oldPid)).toBe(false);
    expect(alive(pid)).toBe(true);
    expect(await health()).toMatchObject({ status: 200, body: { version: '9.0.1' } });
  }, 90_000);

  it('rolls back a release that does not become healthy, and exits non-zero', async () => {
    const result = await install('9.0.2');
    expect(result.code, result.stderr + result.stdout).toBe(3);
    expect(result.stderr).toMatch(
      /branch-agent 9\.0\.2 did not become healthy \(the agent process exited\)\. Rolled back: 9\.0\.1 is running and healthy again/,
    );
    expect(result.stderr).toMatch(/9\.0\.2: simulated start failure/);
    expect(result.stdout).toMatch(/Rolling back to 9\.0\.1/);

    expect(current()).toBe('releases/9.0.1');
    expect(existsSync(path.join(prefix, 'releases/9.0.2'))).toBe(true); // kept for inspection
    const pid = agentPid()!;
    expect(alive(pid)).toBe(true);
    expect(await health()).toMatchObject({ status: 200, body: { version: '9.0.1' } });
  }, 90_000);
});
