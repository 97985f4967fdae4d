/**
 * The Windows adapter, tested where Windows is not: the WinSW definition it renders is checked
 * against the configuration WinSW documents (winsw/winsw, doc/xmlConfigFile.md: the elements,
 * start modes, failure actions, time units and log modes it accepts), and the installer's
 * commands for install, upgrade, a rolled-back upgrade and a rollback are recorded and compared
 * with the sequence expected. The commands go to a stand-in for the WinSW executable that does
 * what WinSW does with the rendered XML: `start` runs <executable> <arguments> in
 * <workingdirectory> with its <env>, `stop` sends the interrupt WinSW's Ctrl+C becomes and waits
 * <stoptimeout>. So the definition is also shown to start a real agent that becomes healthy.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { AGENT_NODE_OPTIONS, type Exec } from '../../src/agent/installer/service-manager.js';
import { rollback, upgrade, type InstallerOptions } from '../../src/agent/installer/upgrade.js';
import { renderWinswXml } from '../../src/agent/installer/winsw.js';
import { buildAgentRelease, stampRelease } from '../support/agent-release.js';
import { newPosDatabase } from '../support/databases.js';

interface XmlElement {
  tag: string;
  attrs: Record<string, string>;
  text: string;
  children: XmlElement[];
}

const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/** Enough of XML for a WinSW file: elements, attributes, text, comments skipped. */
function parseXml(source: string): XmlElement {
  const tokens = source.replace(/<!--[\s\S]*?-->/g, '').match(/<[^>]+>|[^<]+/g) ?? [];
  const root: XmlElement = { tag: '#root', attrs: {}, text: '', children: [] };
  const stack = [root];
  for (const token of tokens) {
    const top = stack.at(-1)!;
    if (token.startsWith('</')) {
      expect(token.slice(2, -1).trim(), 'closing tag').toBe(top.tag);
      stack.pop();
    } else if (token.startsWith('<')) {
      const [, tag, rest] = /^<([\w-]+)([\s\S]*?)\/?>$/.exec(token)!;
      const attrs: Record<string, string> = {};
      for (const [, name, value] of rest!.matchAll(/([\w-]+)="([^"]*)"/g)) attrs[name!] = unescape(value!);
      const element: XmlElement = { tag: tag!, attrs, text: '', children: [] };
      top.children.push(element);
      if (!token.endsWith('/>')) stack.push(element);
    } else {
      top.text += unescape(token);
    }
  }
  expect(stack).toHaveLength(1);
  return root.children[0]!;
}

/** The configuration elements WinSW documents, and the values it accepts for those we use. */
const DOCUMENTED = new Set([
  'id',
  'name',
  'description',
  'executable',
  'startmode',
  'delayedAutoStart',
  'depend',
  'logpath',
  'log',
  'logmode',
  'argument',
  'arguments',
  'startargument',
  'stopargument',
  'stopexecutable',
  'stoptimeout',
  'env',
  'interactive',
  'beeponshutdown',
  'download',
  'onfailure',
  'resetfailure',
  'securtityDescriptor',
  'serviceaccount',
  'workingdirectory',
  'priority',
  'stopparentprocessfirst',
]);
const START_MODES = ['Boot', 'System', 'Automatic', 'Manual'];
const FAILURE_ACTIONS = ['restart', 'reboot', 'none'];
const DURATION = /^\d+ ?(sec|secs|min|mins|hour|hours|day|days)$/;
const LOG_MODES = ['append', 'reset', 'none', 'roll', 'roll-by-size', 'roll-by-time', 'roll-by-size-time'];

/** Splits a command line the way WinSW passes <arguments> on: spaces, double quotes grouping. */
const splitArguments = (line: string) => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);

describe('the WinSW service definition', () => {
  const spec = {
    name: 'branch-agent',
    prefix: 'C:\\Program Files\\branch-agent',
    config: 'C:\\ProgramData\\branch-agent\\config.json',
    node: 'C:\\Program Files\\branch-agent\\current\\runtime\\node.exe',
    logDir: 'C:\\Program Files\\branch-agent\\logs',
    downloadDir: 'C:\\ProgramData\\branch-agent\\downloads',
  };

  it('uses only elements and values WinSW documents', () => {
    const service = parseXml(renderWinswXml(spec));
    expect(service.tag).toBe('service');
    const tags = service.children.map((c) => c.tag);
    for (const tag of tags) expect(DOCUMENTED, `<${tag}> is not documented by WinSW`).toContain(tag);
    const one = (tag: string) => {
      const found = service.children.filter((c) => c.tag === tag);
      expect(found, `<${tag}>`).toHaveLength(1);
      return found[0]!;
    };
    // Windows service names accept '-'; WinSW asks for a name unique on the machine.
    expect(one('id').text).toMatch(/^[A-Za-z0-9-]+$/);
    expect(one('executable').text).toBe(spec.node);
    expect(START_MODES).toContain(one('startmode').text);
    expect(['true', 'false']).toContain(one('delayedAutoStart').text);
    for (const failure of service.children.filter((c) => c.tag === 'onfailure')) {
      expect(FAILURE_ACTIONS).toContain(failure.attrs.action);
      expect(failure.attrs.delay).toMatch(DURATION);
    }
    expect(one('resetfailure').text).toMatch(DURATION);
    expect(one('stoptimeout').text).toMatch(DURATION);
    const log = one('log');
    expect(LOG_MODES).toContain(log.attrs.mode);
    expect(log.children.find((c) => c.tag === 'sizeThreshold')!.text).toMatch(/^\d+$/);
    expect(log.children.find((c) => c.tag === 'keepFiles')!.text).toMatch(/^\d+$/);
    for (const env of service.children.filter((c) => c.tag === 'env')) expect(Object.keys(env.attrs).sort()).toEqual(['name', 'value']);
    // The agent runs through `current`, so an upgrade never rewrites the definition.
    expect(splitArguments(one('arguments').text)).toEqual([...AGENT_NODE_OPTIONS, `${spec.prefix}\\current\\bin\\branch-agent.js`, 'run', '-c', spec.config]);
    expect(one('workingdirectory').text).toBe(spec.prefix);
  });

  it('escapes what XML must escape in paths', () => {
    const odd = { ...spec, prefix: 'C:\\Tools & <Agents>\\branch-agent', config: 'C:\\Data "x"\\config.json' };
    const service = parseXml(renderWinswXml(odd));
    expect(service.children.find((c) => c.tag === 'workingdirectory')!.text).toBe(odd.prefix);
    // A quote inside a quoted argument cannot be passed on: paths with quotes are not Windows paths anyway.
    expect(service.children.find((c) => c.tag === 'arguments')!.text).toContain('C:\\Tools & <Agents>\\branch-agent\\current\\bin\\branch-agent.js');
  });
});

describe('the installer driving WinSW', () => {
  let work: string;
  let prefix: string;
  let config: string;
  let healthPort: number;
  const releases = new Map<string, string>();
  const calls: string[] = [];
  let agent: ChildProcess | undefined;
  let installed = false;

  /** The WinSW stand-in, and every other command (icacls) recorded as given. */
  const standIn: Exec = async (command, args) => {
    const exe = path.basename(command);
    calls.push(exe === command ? `${command} ${args.join(' ')}` : `${exe} ${args.join(' ')}`);
    if (!command.endsWith('branch-agent.exe')) return { code: 0, stdout: '', stderr: '' };
    const running = agent !== undefined && agent.exitCode === null && agent.signalCode === null;
    const service = parseXml(readFileSync(command.replace(/\.exe$/, '.xml'), 'utf8'));
    const text = (tag: string) => service.children.find((c) => c.tag === tag)?.text ?? '';
    switch (args[0]) {
      case 'status':
        return { code: 0, stdout: !installed ? 'NonExistent\n' : running ? 'Started\n' : 'Stopped\n', stderr: '' };
      case 'install':
        installed = true;
        return { code: 0, stdout: '', stderr: '' };
      case 'start': {
        const env = { ...process.env };
        for (const e of service.children.filter((c) => c.tag === 'env')) env[e.attrs.name!] = e.attrs.value;
        mkdirSync(text('logpath'), { recursive: true });
        const out = openSync(path.join(text('logpath'), 'branch-agent.out.log'), 'a');
        agent = spawn(text('executable'), splitArguments(text('arguments')), { cwd: text('workingdirectory'), env, stdio: ['ignore', out, out] });
        return { code: 0, stdout: '', stderr: '' };
      }
      case 'stop': {
        const stopMs = Number(/^(\d+)/.exec(text('stoptimeout'))![1]) * 1000;
        agent?.kill('SIGINT');
        const deadline = Date.now() + stopMs;
        while (agent && agent.exitCode === null && agent.signalCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        agent?.kill('SIGKILL');
        return { code: 0, stdout: '', stderr: '' };
      }
      default:
        return { code: 1, stdout: '', stderr: `unexpected WinSW command ${args[0]}` };
    }
  };

  const options = (): InstallerOptions => ({
    prefix,
    config,
    manager: 'winsw',
    node: process.execPath,
    winsw: path.join(work, 'winsw', 'winsw.exe'),
    healthTimeoutMs: 20_000,
    settleMs: 1_000,
    exec: standIn,
    log: () => undefined,
  });
  const run = async <T>(action: () => Promise<T>) => {
    calls.length = 0;
    const result = await action();
    return { result, calls: [...calls] };
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'branch-agent-winsw-'));
    prefix = path.join(work, 'prefix');
    config = path.join(work, 'config', 'config.json');
    const built = buildAgentRelease(work);
    for (const v of ['9.1.0', '9.1.1', '9.1.2']) releases.set(v, stampRelease(built.dir, path.join(work, `branch-agent-${v}`), v));
    const broken = releases.get('9.1.2')!;
    renameSync(path.join(broken, 'dist/cli.js'), path.join(broken, 'dist/cli-real.js'));
    writeFileSync(path.join(broken, 'dist/cli.js'), "if (process.argv[2] === 'run') process.exit(1);\nawait import('./cli-real.js');\n");

    // What install.ps1 finds in the release: WinSW and its .NET runtime settings.
    mkdirSync(path.join(work, 'winsw'));
    writeFileSync(path.join(work, 'winsw', 'winsw.exe'), 'the WinSW executable');
    writeFileSync(path.join(work, 'winsw', 'winsw.exe.config'), '<configuration/>');

    healthPort = await freePort();
    mkdirSync(path.dirname(config), { recursive: true });
    const gatewayPort = await freePort(); // nothing listens there
    writeFileSync(
      config,
      JSON.stringify({
        agent: {
          licenseKey: 'TEST000000000001',
          gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
          token: 'agt_test',
          database: await newPosDatabase(),
          health: { host: '127.0.0.1', port: healthPort },
          log: { level: 'warn' },
        },
      }),
    );
  }, 180_000);

  afterAll(() => {
    agent?.kill('SIGKILL');
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const icacls = () => `icacls ${path.dirname(config)} /inheritance:r /grant:r *S-1-5-32-544:(OI)(CI)F /grant:r *S-1-5-18:(OI)(CI)F`;

  it('install: secures the config folder, installs the service, starts it', async () => {
    const { result, calls } = await run(() => upgrade({ ...options(), releaseDir: releases.get('9.1.0')! }));
    expect(result, result.message).toMatchObject({ exitCode: 0, current: '9.1.0' });
    expect(calls).toEqual([
      icacls(),
      'branch-agent.exe status',
      'branch-agent.exe install',
      // The upgrade helper's scheduled task (windows-upgrade-task.ts), registered beside the service.
      `schtasks /Create /TN branch-agent-upgrade /XML ${path.join(prefix, 'service', 'branch-agent-upgrade.xml')} /F`,
      'branch-agent.exe status',
      'branch-agent.exe start',
    ]);
    const serviceDir = path.join(prefix, 'service');
    expect(readFileSync(path.join(serviceDir, 'branch-agent.exe'), 'utf8')).toBe('the WinSW executable');
    expect(existsSync(path.join(serviceDir, 'branch-agent.exe.config'))).toBe(true);
    expect(readFileSync(path.join(serviceDir, 'branch-agent.xml'), 'utf8')).toBe(
      renderWinswXml({
        name: 'branch-agent',
        prefix,
        config,
        node: process.execPath,
        logDir: path.join(prefix, 'logs'),
        downloadDir: path.join(path.dirname(config), 'downloads'),
      }),
    );
  }, 60_000);

  it('upgrade: stops the running service, switches current, starts it again', async () => {
    const { result, calls } = await run(() => upgrade({ ...options(), releaseDir: releases.get('9.1.1')! }));
    expect(result, result.message).toMatchObject({ exitCode: 0, current: '9.1.1', previous: '9.1.0' });
    // The task is unchanged: only looked up, never registered again (a remote upgrade runs inside it).
    expect(calls).toEqual([
      icacls(),
      'branch-agent.exe status',
      'schtasks /Query /TN branch-agent-upgrade',
      'branch-agent.exe status',
      'branch-agent.exe stop',
      'branch-agent.exe start',
    ]);
  }, 60_000);

  it('a release that does not become healthy: started, then the previous one started again', async () => {
    const { result, calls } = await run(() => upgrade({ ...options(), healthTimeoutMs: 6_000, releaseDir: releases.get('9.1.2')! }));
    expect(result, result.message).toMatchObject({ exitCode: 3, outcome: 'rolled-back', current: '9.1.1' });
    expect(calls).toEqual([
      icacls(),
      'branch-agent.exe status',
      'schtasks /Query /TN branch-agent-upgrade',
      'branch-agent.exe status',
      'branch-agent.exe stop',
      'branch-agent.exe start',
      // the agent of 9.1.2 has exited: nothing to stop
      'branch-agent.exe status',
      'branch-agent.exe start',
    ]);
  }, 60_000);

  it('rollback: stops, switches back, starts', async () => {
    const { result, calls } = await run(() => rollback(options()));
    expect(result, result.message).toMatchObject({ exitCode: 0, current: '9.1.0' });
    expect(calls).toEqual(['branch-agent.exe status', 'branch-agent.exe stop', 'branch-agent.exe start']);
  }, 60_000);
});
