/**
 * The win32 release on Windows' own Node.js, under Debian's Wine: the release as
 * make-release.sh builds it for Windows, its agent run by node.exe from the npm registry. It
 * runs `--help` and `doctor`, connects to this test's gateway on Linux with its POS on this
 * test's PostgreSQL, serves a read, a write and that write's event, and stops on Ctrl+C. The
 * same release's agent then runs on Linux against the same gateway and database, and the test
 * prints what the Windows agent took from start to connected and what a read costs on each.
 *
 * Node.js 22, not the release's 24: Wine 8 cannot start Node 24's node.exe (test/support/
 * wine.ts, where every Wine behaviour the tests step around is named; the first test checks
 * this one still holds).
 *
 * Then the installer's Windows steps against Wine's own tools, where several are stand-ins
 * that exit 0 and do nothing: each must be caught, and `service install` must end at the first
 * with exit 1, a sentence naming it and the previous installation untouched. What this proves
 * and what it cannot (LocalSystem's rights, the service manager) is in docs/install.md's table.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_NODE_OPTIONS } from '../../src/agent/installer/service-manager.js';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { buildAgentRelease } from '../support/agent-release.js';
import { newGatewayDatabase, newPosDatabase } from '../support/databases.js';
import { until } from '../support/until.js';
import { createWinePrefix, fetchWindowsNode, runWindows, startWindows, stopWine, WINDOWS_NODE, windowsPath, wineMissing, type Wine } from '../support/wine.js';

const missing = wineMissing();
if (missing) console.log(`Windows smoke test under Wine skipped: ${missing}.`);

const BRANCH = 'TEST000000000001';
const TOKEN = 'agt_wine_test';
const API_KEY = 'wine-test-key';
/** Reads timed on each agent, after one that warms it up. */
const READS = 15;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe.skipIf(missing)(`the win32 release on Windows' own Node.js under Wine${missing ? ' (skipped: see the line above)' : ''}`, () => {
  let work: string;
  let wine: Wine;
  let node: string;
  let release: string;
  let store: GatewayStore;
  let gateway: Gateway;
  let gatewayUrl: string;
  /** The agent's config at Windows' default place, C:\ProgramData\branch-agent\config.json. */
  let configFile: string;
  const CONFIG = 'C:\\ProgramData\\branch-agent\\config.json';
  const agents: ChildProcess[] = [];
  const timings = { windowsConnectMs: 0, linuxConnectMs: 0, windowsReads: [] as number[], linuxReads: [] as number[] };

  const api = async (method: string, url: string, body?: unknown) => {
    const started = performance.now();
    const res = await fetch(`${gatewayUrl}${url}`, {
      method,
      headers: { 'x-api-key': API_KEY, ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
    return { status: res.status, body: (await res.json()) as any, ms: performance.now() - started };
  };
  const windows = (args: string[], name: string) =>
    runWindows(wine, node, [windowsPath(path.join(release, 'bin', 'branch-agent.js')), ...args], path.join(work, `${name}.log`));
  const connected = () => gateway.hub.agentFor(BRANCH);
  /** The same product read, through the gateway, timed: the first one warms the agent's path up. */
  const timedReads = async () => {
    const times: number[] = [];
    for (let i = 0; i <= READS; i++) {
      const read = await api('GET', `/productos/${BRANCH}?pageSize=20`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.data.length).toBeGreaterThan(0);
      if (i > 0) times.push(read.ms);
    }
    return times;
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'branch-agent-wine-'));
    // The prefix and node.exe are made while the release builds (the build blocks this process).
    const ready = Promise.all([createWinePrefix(path.join(work, 'wineprefix')), fetchWindowsNode(work)]);
    try {
      release = buildAgentRelease(work, { withRuntime: true, tarball: false, platform: 'win32' }).dir;
    } catch (error) {
      await ready.catch(() => undefined);
      throw error;
    }
    [wine, node] = await ready;

    store = new GatewayStore(await newGatewayDatabase());
    await store.migrate();
    const owner = await store.ensureUser('chain');
    await store.upsertBranch(owner, BRANCH, TOKEN, 'Centro');
    await store.addApiKey(owner, API_KEY, 'wine', ['read', 'write']);
    gateway = await buildGateway({ store, log: pino({ level: 'silent' }), webhookKey: randomBytes(32) });
    gatewayUrl = (await gateway.app.listen({ host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');

    configFile = path.join(wine.driveC, 'ProgramData', 'branch-agent', 'config.json');
    mkdirSync(path.dirname(configFile), { recursive: true });
    const agent = {
      licenseKey: BRANCH,
      gatewayUrl,
      token: TOKEN,
      database: await newPosDatabase(),
      health: { host: '127.0.0.1', port: await freePort() },
      log: { level: 'info' },
      events: { pollIntervalMs: 200 },
    };
    writeFileSync(configFile, JSON.stringify({ agent }, null, 2));
  }, 420_000);

  afterAll(async () => {
    for (const agent of agents) agent.kill('SIGKILL');
    await gateway?.app.close();
    await store?.close();
    if (wine) await stopWine(wine);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("the release's own Node.js 24 still does not start under this Wine (why these tests run Node.js 22)", async () => {
    const out = path.join(work, 'node24.log');
    const node24 = startWindows(wine, path.join(release, 'runtime', 'node.exe'), ['-e', 'console.log(process.platform, process.version)'], out);
    const exited = new Promise((resolve) => node24.on('exit', resolve));
    // Once V8 has said why, Wine's crash handling only takes time (about 12 s): it is cut short.
    await until(() => node24.exitCode !== null || readFileSync(out, 'utf8').includes('SegmentedTable::InitializeTable'), 60_000, 100);
    node24.kill('SIGKILL');
    await exited;
    const output = readFileSync(out, 'utf8');
    // Should a newer Wine start it, this says so; the release's runtime could then be the one tested.
    expect(output).toMatch(/win32 v24\.21\.0|Fatal process out of memory: SegmentedTable::InitializeTable/);
    console.log(
      output.includes('win32 v24')
        ? `Wine ${wine.version} starts the release's Node.js 24: the Windows tests could run it instead of ${WINDOWS_NODE.spec}.`
        : `Wine ${wine.version} still cannot start the release's Node.js 24 (V8's SegmentedTable reservation is refused): the Windows tests run ${WINDOWS_NODE.spec}.`,
    );
  }, 90_000);

  it('runs --help', async () => {
    const help = await windows(['--help'], 'help');
    expect(help.code, help.output).toBe(0);
    for (const command of ['run', 'doctor', 'service', 'migrate']) expect(help.output).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  }, 60_000);

  it('doctor passes every check: the POS database, its tables, the gateway and the token', async () => {
    const doctor = await windows(['doctor', '-c', CONFIG], 'doctor');
    expect(doctor.code, doctor.output).toBe(0);
    // The gateway check is an HTTP GET: it failed under Wine while it used fetch (connect UNKNOWN).
    expect(doctor.output).toMatch(/^\[ OK \] Gateway: http:\/\/127\.0\.0\.1:\d+ answered in \d+ ms/m);
    expect(doctor.output).toMatch(/^\[ OK \] Agent token: accepted by the gateway/m);
    expect(doctor.output).toMatch(/^\[ OK \] POS database:/m);
    expect(doctor.output).not.toMatch(/^\[FAIL\]/m);
  }, 90_000);

  it('connects, serves a read, a write and its event, and stops on Ctrl+C', async () => {
    const log = path.join(work, 'windows-agent.log');
    const started = Date.now();
    const agent = startWindows(wine, node, [...AGENT_NODE_OPTIONS, windowsPath(path.join(release, 'bin', 'branch-agent.js')), 'run', '-c', CONFIG], log);
    agents.push(agent);
    const exited = new Promise<number | null>((resolve) => agent.on('exit', (code) => resolve(code)));
    await until(() => connected() !== undefined || agent.exitCode !== null, 90_000, 50).catch(() => undefined);
    expect(connected(), readFileSync(log, 'utf8')).toBeDefined();
    timings.windowsConnectMs = Date.now() - started;
    expect(connected()!.platform).toBe('win32');

    timings.windowsReads = await timedReads();

    const write = await api('PUT', `/productos/${BRANCH}/3001`, {
      idEmpresa: '0000000001',
      descripcionProducto: 'Tacos al pastor (Windows)',
      idGrupo: 'ENT',
      nombreCorto: 'Tacos win',
      visibleMenu: true,
      precio: 91.5,
      impuesto1: 16,
      impuesto2: 0,
      impuesto3: 0,
      bloqueado: false,
      permitirprodcompenmodif: false,
    });
    expect(write.status, JSON.stringify(write.body)).toBe(200);
    expect(write.body.jobId).toMatch(/^[0-9a-f-]{36}$/);

    // The agent's poll sees the change its own job made, and the gateway files the event.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
    const eventOf = async () => (await api('GET', `/eventos/${BRANCH}?limit=50`)).body.data.find((e: any) => e.type === 'producto.actualizado');
    await until(async () => (await eventOf()) !== undefined, 30_000, 250);
    expect(await eventOf()).toMatchObject({ origin: 'api', jobId: write.body.jobId, data: expect.objectContaining({ idProducto: '3001' }) });

    // SIGINT to the Wine process is the CTRL_C_EVENT of a console's Ctrl+C (what WinSW's stop sends).
    agent.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(readFileSync(log, 'utf8')).toMatch(/agent stopping: finishing running jobs/);
    await until(() => connected() === undefined, 10_000, 50);
  }, 240_000);

  it('serves the same read from the same release on Linux, for comparison', async () => {
    const started = Date.now();
    const agent = spawn(process.execPath, [...AGENT_NODE_OPTIONS, path.join(release, 'bin', 'branch-agent.js'), 'run', '-c', configFile], { stdio: 'ignore' });
    agents.push(agent);
    const exited = new Promise<number | null>((resolve) => agent.on('exit', (code) => resolve(code)));
    await until(() => connected() !== undefined, 60_000, 50);
    timings.linuxConnectMs = Date.now() - started;
    expect(connected()!.platform).toBe('linux');
    timings.linuxReads = await timedReads();
    agent.kill('SIGINT');
    expect(await exited).toBe(0);

    const [win, linux] = [median(timings.windowsReads), median(timings.linuxReads)];
    console.log(
      [
        `Windows agent (${WINDOWS_NODE.spec} under Wine ${wine.version}): start to connected ${(timings.windowsConnectMs / 1000).toFixed(1)} s ` +
          `(the same release on Linux, Node.js ${process.versions.node}: ${(timings.linuxConnectMs / 1000).toFixed(1)} s).`,
        `A product read through the gateway (median of ${READS}): ${win.toFixed(1)} ms from the Windows agent against ${linux.toFixed(1)} ms from the Linux agent (${(win / linux).toFixed(1)}x).`,
      ].join('\n'),
    );
  }, 120_000);

  /** Each Windows step of the installer, and the Wine behaviour that keeps it from taking here. */
  const STEPS = [
    [
      'icacls',
      "Wine's icacls is a stand-in: it exits 0 and sets nothing, and /save writes no file",
      /^Securing the config folder .+ did not take: icacls exited 0, but icacls saved no ACL to read back$/,
    ],
    [
      'winsw',
      'WinSW 1.17 is a .NET Framework program and this Wine has no .NET (Wine Mono): it cannot run',
      /^Installing the Windows service \(WinSW\) did not take: WinSW could not tell the service's state: .+ status exited \d+/,
    ],
    [
      'sc',
      "Wine's service manager has no service a stand-in WinSW said it installed",
      /^Installing the Windows service \(WinSW\) did not take: the service manager does not know branch-agent: sc query branch-agent exited [1-9]/,
    ],
    [
      'schtasks',
      "Wine's schtasks /Query is a stand-in: it prints nothing and exits 0",
      /^Registering the upgrade task did not take: schtasks \/Create exited 0, but schtasks \/Query \/TN branch-agent-upgrade \/XML shows no task/,
    ],
    [
      'junction',
      'Wine 8 has no junctions: node.exe cannot make one (ENOTSUP)',
      /^Pointing .+\\current at releases\/1\.0\.0 did not take: .+current\.new could not be made \(a junction\): ENOTSUP/,
    ],
  ] as const;

  it.each(STEPS.map(([step, why]) => [step, why]))(
    'installer step %s is caught under Wine (%s)',
    async (step) => {
      const results = await installerStepsUnderWine();
      const expected = STEPS.find(([s]) => s === step)!;
      expect(results.results.find((r) => r.step === step)?.error).toMatch(expected[2]);
      if (step === 'junction') expect(results.currentExists, 'current made where no junction could be').toBe(false);
    },
    180_000,
  );

  let stepsRun: Promise<{ results: Array<{ step: string; error: string | null }>; currentExists: boolean }> | undefined;
  /** test/support/wine-installer-steps.ts, bundled and run once by node.exe under Wine. */
  const installerStepsUnderWine = () =>
    (stepsRun ??= (async () => {
      const script = path.join(work, 'installer-steps.mjs');
      await build({
        entryPoints: [path.join(import.meta.dirname, '../support/wine-installer-steps.ts')],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node22',
        outfile: script,
        banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
        logLevel: 'warning',
      });
      const result = path.join(work, 'installer-steps.json');
      const ran = await runWindows(
        wine,
        node,
        [
          windowsPath(script),
          windowsPath(result),
          'C:\\Program Files\\branch-agent-steps',
          'C:\\ProgramData\\branch-agent-steps\\config.json',
          windowsPath(path.join(release, 'service-install', 'winsw', 'winsw.exe')),
        ],
        path.join(work, 'installer-steps.log'),
        150_000,
      );
      expect(ran.code, ran.output).toBe(0);
      return JSON.parse(readFileSync(result, 'utf8')) as { results: Array<{ step: string; error: string | null }>; currentExists: boolean };
    })());

  it('service install stops at the first step that does not take: exit 1, the step named, the previous installation untouched', async () => {
    // An installation as an earlier release left it at the default prefix, C:\Program Files\branch-agent.
    const prefix = path.join(wine.driveC, 'Program Files', 'branch-agent');
    mkdirSync(path.join(prefix, 'releases'), { recursive: true });
    cpSync(path.join(release, 'package.json'), path.join(prefix, 'releases', '0.0.9', 'package.json'), { recursive: true });
    mkdirSync(path.join(prefix, 'service'));
    writeFileSync(path.join(prefix, 'service', 'branch-agent.xml'), '<service><id>branch-agent</id></service>');
    // Every file under the prefix, but the installer's record of this attempt (the layout's empty folders do not count).
    const snapshot = () =>
      (function walk(dir: string): string[] {
        return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
          const file = path.join(dir, e.name);
          return e.isDirectory() ? walk(file) : [`${file} ${statSync(file).size} ${statSync(file).mtimeMs}`];
        });
      })(prefix).filter((line) => !line.includes(`${path.sep}state${path.sep}`));
    const before = snapshot();
    const configBefore = readFileSync(configFile, 'utf8');

    const install = await windows(['service', 'install', '--node', windowsPath(node), '--health-timeout', '20'], 'install');
    expect(install.code, install.output).toBe(1);
    // icacls comes first: under Wine it exits 0 and sets nothing, and the read-back says so.
    expect(install.output).toMatch(
      /ERROR: Securing the config folder C:\\ProgramData\\branch-agent did not take: icacls exited 0, but icacls saved no ACL to read back\. Nothing was switched: fix the cause and run the installer again\./,
    );
    expect(snapshot()).toEqual(before);
    expect(readFileSync(configFile, 'utf8')).toBe(configBefore);
    const record = JSON.parse(readFileSync(path.join(prefix, 'state', 'last-upgrade.json'), 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({ outcome: 'not-switched', exitCode: 1, reason: expect.stringMatching(/^Securing the config folder/) });
  }, 180_000);
});
