/**
 * Exit code 4 of `install`/`upgrade` (docs/install.md, step 6 and "Exit codes"): the new
 * release is unhealthy and there is nothing healthy to roll back to, either because there is no
 * previous release or because it does not become healthy again either. Exit 3 (the previous one
 * restored) is the contrast.
 *
 * The installer's algorithm (upgrade.ts) runs for real with the `background` manager: it
 * copies the releases, runs their migrations, starts each as a detached process through
 * `<prefix>/current` and waits on its /healthz. The releases are stand-ins of a few lines that
 * answer `migrate` and, for `run`, serve /healthz with their version unless their folder holds
 * an UNHEALTHY file, in which case they exit at once, as an agent that cannot start does.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { layoutOf } from '../../src/agent/installer/layout.js';
import { readLastUpgrade } from '../../src/agent/installer/state.js';
import { upgrade, type UpgradeOptions } from '../../src/agent/installer/upgrade.js';
import { freePort } from '../../src/embedded-postgres/cluster.js';

const AGENT = `import { createServer } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
const [command, , config] = process.argv.slice(2);
if (command === 'migrate') process.exit(0);
if (command !== 'run') process.exit(64);
if (existsSync(new URL('../UNHEALTHY', import.meta.url))) {
  console.error('simulated start failure');
  process.exit(1);
}
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const { health } = JSON.parse(readFileSync(config, 'utf8')).agent;
const started = Date.now();
createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ status: 'ok', version, uptimeSec: Math.floor((Date.now() - started) / 1000), jobsRunning: 0 }));
}).listen(health.port, health.host);
`;

const work = mkdtempSync(path.join(tmpdir(), 'branch-agent-unhealthy-'));
const config = path.join(work, 'config', 'config.json');
const prefixes: string[] = [];

/** A stand-in release folder of `version`; `unhealthy`: it never starts. */
function release(version: string, unhealthy = false): string {
  const dir = path.join(work, `branch-agent-${version}`);
  for (const sub of ['bin', 'dist', 'sql']) mkdirSync(path.join(dir, sub), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'branch-agent', version, type: 'module' }));
  writeFileSync(path.join(dir, 'bin', 'branch-agent.js'), AGENT);
  writeFileSync(path.join(dir, 'dist', 'cli.js'), '');
  if (unhealthy) writeFileSync(path.join(dir, 'UNHEALTHY'), '');
  return dir;
}

function options(prefix: string, releaseDir: string): UpgradeOptions {
  return { prefix, config, manager: 'background', node: process.execPath, releaseDir, healthTimeoutMs: 20_000, settleMs: 500, log: () => undefined };
}

beforeAll(async () => {
  mkdirSync(path.dirname(config), { recursive: true });
  writeFileSync(config, JSON.stringify({ agent: { health: { host: '127.0.0.1', port: await freePort() } } }));
  release('1.0.0');
  release('2.0.0', true);
});

afterAll(() => {
  // The agents these tests started, should one still run after a failure.
  for (const prefix of prefixes) {
    const pidFile = path.join(prefix, 'run', 'branch-agent.pid');
    if (!existsSync(pidFile)) continue;
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(work, { recursive: true, force: true });
});

const newPrefix = (name: string) => {
  const prefix = path.join(work, name);
  prefixes.push(prefix);
  return prefix;
};

it('exits 4 when the first release installed does not become healthy: there is no previous one', async () => {
  const prefix = newPrefix('first');
  const result = await upgrade(options(prefix, path.join(work, 'branch-agent-2.0.0')));
  expect(result, result.message).toMatchObject({ exitCode: 4, outcome: 'unhealthy', version: '2.0.0', current: '2.0.0' });
  expect(result.previous).toBeUndefined();
  expect(result.message).toMatch(/did not become healthy \(the agent process exited\) and there is no other release to roll back to/);
  expect(readLastUpgrade(layoutOf(prefix))).toMatchObject({ action: 'install', outcome: 'unhealthy', exitCode: 4, to: '2.0.0', current: '2.0.0' });
});

it('exits 3 with the previous release healthy again, and 4 when it does not become healthy either', async () => {
  const prefix = newPrefix('upgraded');
  const installed = await upgrade(options(prefix, path.join(work, 'branch-agent-1.0.0')));
  expect(installed, installed.message).toMatchObject({ exitCode: 0, current: '1.0.0' });

  const restored = await upgrade(options(prefix, path.join(work, 'branch-agent-2.0.0')));
  expect(restored, restored.message).toMatchObject({ exitCode: 3, outcome: 'rolled-back', previous: '1.0.0', current: '1.0.0' });

  // 1.0.0 runs; once stopped it will not start again (its database gone, its files damaged).
  writeFileSync(path.join(prefix, 'releases', '1.0.0', 'UNHEALTHY'), '');
  const result = await upgrade(options(prefix, path.join(work, 'branch-agent-2.0.0')));
  expect(result, result.message).toMatchObject({ exitCode: 4, outcome: 'unhealthy', version: '2.0.0', previous: '1.0.0', current: '1.0.0' });
  expect(result.message).toMatch(
    /did not become healthy \(the agent process exited\), and neither did 1\.0\.0 after the rollback \(the agent process exited\)/,
  );
  expect(readLastUpgrade(layoutOf(prefix))).toMatchObject({ action: 'upgrade', outcome: 'unhealthy', exitCode: 4, from: '1.0.0', to: '2.0.0' });
}, 60_000);
