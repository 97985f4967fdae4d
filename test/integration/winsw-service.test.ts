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
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { probeHealth } from '../../src/agent/installer/health-wait.js';
import { AGENT_NODE_OPTIONS, type Exec } from '../../src/agent/installer/service-manager.js';
import { rollback, upgrade, type InstallerOptions } from '../../src/agent/installer/upgrade.js';
import { renderWinswXml } from '../../src/agent/installer/winsw.js';
import { buildAgentRelease, stampRelease } from '../support/agent-release.js';
import { serviceSpecAt, WINDOWS_SPEC } from '../support/windows-service-spec.js';
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
  const spec = WINDOWS_SPEC;

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

  /** The upgrade task as `schtasks /Create` registered it, in the text /Query /XML prints. */
  let task: string | undefined;
  /** A tool that exits as if it worked and does nothing, as Wine's stand-ins do (or WinSW that cannot run at all). */
  let broken: 'icacls' | 'winsw' | 'sc' | 'schtasks' | 'stop' | undefined;

  /**
   * The Windows tools as Windows answers them, each command recorded as given (the ACL file's
   * name without its unique part): icacls sets and saves the ACL (SDDL in UTF-16, as icacls
   * /save writes it), sc knows the service once WinSW installed it, schtasks registers the task
   * from its XML and prints it back.
   */
  const windowsTool = (command: string, args: string[]) => {
    if (broken === command) return { code: command === 'sc' ? 1060 : 0, stdout: '', stderr: '' };
    switch (command) {
      case 'icacls':
        if (args[1] === '/save') writeFileSync(args[2]!, Buffer.from(`config\r\nD:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)\r\n`, 'utf16le'));
        return { code: 0, stdout: 'processed file: ' + args[0], stderr: '' };
      case 'sc':
        return installed
          ? { code: 0, stdout: `SERVICE_NAME: ${args[1]}\n        STATE              : 4  RUNNING`, stderr: '' }
          : { code: 1060, stdout: '', stderr: 'The specified service does not exist as an installed service.' };
      case 'schtasks':
        if (args[0] === '/Create') task = readFileSync(args[4]!).subarray(2).toString('utf16le');
        if (args[0] === '/Delete') task = undefined;
        if (args[0] === '/Query')
          return task === undefined
            ? { code: 1, stdout: '', stderr: 'ERROR: The system cannot find the file specified.' }
            : { code: 0, stdout: task, stderr: '' };
        return { code: 0, stdout: 'SUCCESS', stderr: '' };
      default:
        return { code: 1, stdout: '', stderr: `unexpected command ${command}` };
    }
  };

  /** The WinSW stand-in, and every other command (icacls, sc, schtasks) answered by windowsTool. */
  const standIn: Exec = async (command, args) => {
    const exe = path.basename(command);
    const shown = args.map((a) => a.replace(/branch-agent-acl-[\d-]+\.txt$/, 'branch-agent-acl.txt'));
    calls.push(exe === command ? `${command} ${shown.join(' ')}` : `${exe} ${shown.join(' ')}`);
    if (!command.endsWith('branch-agent.exe')) return windowsTool(command, args);
    if (broken === 'winsw') return { code: 255, stdout: '', stderr: '' };
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
        if (broken === 'stop') return { code: 0, stdout: '', stderr: '' };
        const stopMs = Number(/^(\d+)/.exec(text('stoptimeout'))![1]) * 1000;
        agent?.kill('SIGINT');
        const deadline = Date.now() + stopMs;
        while (agent && agent.exitCode === null && agent.signalCode === null && Date.now() < deadline) await sleep(50);
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

  /** The config folder secured, then its ACL saved to be read back. */
  const icacls = () => [
    `icacls ${path.dirname(config)} /inheritance:r /grant:r *S-1-5-32-544:(OI)(CI)F /grant:r *S-1-5-18:(OI)(CI)F`,
    `icacls ${path.dirname(config)} /save ${path.join(tmpdir(), 'branch-agent-acl.txt')}`,
  ];

  it('install: secures the config folder, installs the service, starts it', async () => {
    const { result, calls } = await run(() => upgrade({ ...options(), releaseDir: releases.get('9.1.0')! }));
    expect(result, result.message).toMatchObject({ exitCode: 0, current: '9.1.0' });
    expect(calls).toEqual([
      ...icacls(),
      'branch-agent.exe status',
      'branch-agent.exe install',
      'sc query branch-agent',
      // The upgrade helper's scheduled task (windows-upgrade-task.ts), registered beside the service, and read back.
      `schtasks /Create /TN branch-agent-upgrade /XML ${path.join(prefix, 'service', 'branch-agent-upgrade.xml')} /F`,
      'schtasks /Query /TN branch-agent-upgrade /XML',
      'branch-agent.exe status',
      'branch-agent.exe start',
    ]);
    const serviceDir = path.join(prefix, 'service');
    expect(readFileSync(path.join(serviceDir, 'branch-agent.exe'), 'utf8')).toBe('the WinSW executable');
    expect(existsSync(path.join(serviceDir, 'branch-agent.exe.config'))).toBe(true);
    expect(readFileSync(path.join(serviceDir, 'branch-agent.xml'), 'utf8')).toBe(renderWinswXml(serviceSpecAt(prefix, config, process.execPath)));
  }, 60_000);

  it('upgrade: stops the running service, switches current, starts it again', async () => {
    const { result, calls } = await run(() => upgrade({ ...options(), releaseDir: releases.get('9.1.1')! }));
    expect(result, result.message).toMatchObject({ exitCode: 0, current: '9.1.1', previous: '9.1.0' });
    // The task is unchanged: only read back, never registered again (a remote upgrade runs inside it).
    expect(calls).toEqual([
      ...icacls(),
      'branch-agent.exe status',
      'sc query branch-agent',
      'schtasks /Query /TN branch-agent-upgrade /XML',
      'branch-agent.exe status',
      'branch-agent.exe stop',
      'branch-agent.exe status',
      'branch-agent.exe start',
    ]);
  }, 60_000);

  it('a release that does not become healthy: started, then the previous one started again', async () => {
    const { result, calls } = await run(() => upgrade({ ...options(), healthTimeoutMs: 6_000, releaseDir: releases.get('9.1.2')! }));
    expect(result, result.message).toMatchObject({ exitCode: 3, outcome: 'rolled-back', current: '9.1.1' });
    expect(calls).toEqual([
      ...icacls(),
      'branch-agent.exe status',
      'sc query branch-agent',
      'schtasks /Query /TN branch-agent-upgrade /XML',
      'branch-agent.exe status',
      'branch-agent.exe stop',
      'branch-agent.exe status',
      'branch-agent.exe start',
      // the agent of 9.1.2 has exited: nothing to stop
      'branch-agent.exe status',
      'branch-agent.exe start',
    ]);
  }, 60_000);

  it('rollback: stops, switches back, starts', async () => {
    const { result, calls } = await run(() => rollback(options()));
    expect(result, result.message).toMatchObject({ exitCode: 0, current: '9.1.0' });
    expect(calls).toEqual(['branch-agent.exe status', 'branch-agent.exe stop', 'branch-agent.exe status', 'branch-agent.exe start']);
  }, 60_000);

  it.each([
    ['icacls that exits 0 and changes nothing', 'icacls', /^Securing the config folder .+ did not take: icacls exited 0, but icacls saved no ACL to read back/],
    [
      'WinSW that cannot run',
      'winsw',
      /^Installing the Windows service \(WinSW\) did not take: WinSW could not tell the service's state: .+ status exited 255/,
    ],
    [
      'a service the service manager does not know',
      'sc',
      /^Installing the Windows service \(WinSW\) did not take: the service manager does not know branch-agent: sc query branch-agent exited 1060/,
    ],
    [
      'schtasks /Query that exits 0 and shows nothing',
      'schtasks',
      /^Registering the upgrade task did not take: schtasks \/Create exited 0, but schtasks \/Query .+ shows no task/,
    ],
    ['WinSW stop that leaves the agent running', 'stop', /^Stopping the agent did not take: .+ stop exited 0, but WinSW says the service is Started/],
  ] as const)(
    '%s: exit 1 naming the step, and 9.1.0 keeps running as it was',
    async (_, tool, sentence) => {
      const before = await probeHealth(`http://127.0.0.1:${healthPort}/healthz`);
      expect(before?.version).toBe('9.1.0');
      broken = tool;
      const result = await upgrade({ ...options(), releaseDir: releases.get('9.1.1')! }).finally(() => (broken = undefined));
      expect(result).toMatchObject({ exitCode: 1, outcome: 'not-switched', current: '9.1.0' });
      expect(result.message).toMatch(sentence);
      expect(result.message).toMatch(/Nothing was switched; 9\.1\.0 keeps running/);
      expect(readlinkSync(path.join(prefix, 'current'))).toBe(path.join('releases', '9.1.0'));
      expect(existsSync(path.join(prefix, 'current.new'))).toBe(false);
      // The same agent, never stopped: its uptime went on.
      const after = await probeHealth(`http://127.0.0.1:${healthPort}/healthz`);
      expect(after?.version).toBe('9.1.0');
      expect(after!.uptimeSec).toBeGreaterThanOrEqual(before!.uptimeSec);
    },
    60_000,
  );
});
