/**
 * Remote upgrades under systemd and WinSW (issue 16): the agent drops a request in its download
 * folder and a privileged helper the installer set up takes it (upgrade-request.ts,
 * upgrade-helper.ts). Tested like the service adapters: the helper's systemd units and Windows
 * task are rendered and the exact commands the installer and the agent would run are recorded.
 * The helper's side runs for real in a temp prefix: an installed agent (a real background
 * process, on a real PostgreSQL POS database) is upgraded from a request, and forged requests
 * (bytes that are not the signed ones, a file outside the download folder, a link, a foreign
 * signature, a tarball that holds another version) are refused, recorded, and reported by the
 * agent's side as the reason it failed, while the installed agent keeps running.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { layoutOf } from '../../src/agent/installer/layout.js';
import { managerOf } from '../../src/agent/installer/remote-upgrade.js';
import type { Exec, ServiceSpec } from '../../src/agent/installer/service-manager.js';
import { systemdService } from '../../src/agent/installer/systemd.js';
import { renderUpgradeUnits } from '../../src/agent/installer/systemd-upgrade-units.js';
import { takeUpgradeRequest } from '../../src/agent/installer/upgrade-helper.js';
import { requestingInstaller, upgradeSettingsOf, type UpgradeRequest } from '../../src/agent/installer/upgrade-request.js';
import { upgrade, uninstall, type InstallerOptions } from '../../src/agent/installer/upgrade.js';
import { winswService } from '../../src/agent/installer/winsw.js';
import { renderUpgradeTaskXml } from '../../src/agent/installer/windows-upgrade-task.js';
import { signTarball } from '../../src/gateway/fleet/release-files.js';
import type { ReleaseManifest } from '../../src/protocol/releases.js';
import { buildAgentRelease, stampRelease } from '../support/agent-release.js';
import { WINDOWS_SPEC } from '../support/windows-service-spec.js';
import { newPosDatabase } from '../support/databases.js';
import { endProcessesUnder } from '../support/processes.js';
import { until } from '../support/until.js';

/** Records every command; answers as the tools do when all goes well. */
function recorder(answers: Record<string, number> = {}) {
  const calls: string[] = [];
  const exec: Exec = (command, args) => {
    const line = `${command} ${args.join(' ')}`;
    calls.push(line);
    return Promise.resolve({ code: answers[line] ?? 0, stdout: '', stderr: answers[line] ? 'ERROR: Access is denied.' : '' });
  };
  return { calls, exec };
}

describe('the upgrade helper under systemd', () => {
  const spec: ServiceSpec = {
    name: 'branch-agent',
    prefix: '/opt/branch-agent',
    config: '/etc/branch-agent/config.json',
    node: '/opt/branch-agent/current/runtime/node',
    logDir: '/opt/branch-agent/logs',
    downloadDir: '/etc/branch-agent/downloads',
  };

  it('renders a path unit on the request file that starts a root oneshot running the installed CLI', () => {
    const units = renderUpgradeUnits(spec, { user: 'branch-agent', root: true });
    expect(units.path).toBe('branch-agent-upgrade.path');
    const pathUnit = units.files['branch-agent-upgrade.path']!;
    expect(pathUnit).toContain('\n[Path]\nPathExists=/etc/branch-agent/downloads/upgrade-request.json\nUnit=branch-agent-upgrade.service\n');
    expect(pathUnit).toContain('\n[Install]\nWantedBy=multi-user.target\n');
    const service = units.files['branch-agent-upgrade.service']!;
    expect(service).toContain('\nType=oneshot\n');
    // Root's: no User=, and none of the agent's sandboxing.
    expect(service).not.toMatch(/^User=|^NoNewPrivileges|^ProtectSystem/m);
    expect(service).toContain(
      '\nExecStart="/opt/branch-agent/current/runtime/node" "/opt/branch-agent/current/bin/branch-agent.js" "service" "upgrade-request" "--prefix" "/opt/branch-agent" "--config" "/etc/branch-agent/config.json" "--manager" "systemd" "--user" "branch-agent"\n',
    );
    expect(service).toMatch(/^TimeoutStartSec=30min$/m);
  });

  it('install writes the units and enables the path unit; the download folder is the agent’s', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'branch-agent-systemd-'));
    try {
      const local = { ...spec, prefix: path.join(work, 'opt'), downloadDir: path.join(work, 'etc', 'downloads') };
      const { calls, exec } = recorder({ 'id -u branch-agent': 0 });
      const unitDir = path.join(work, 'units');
      const manager = systemdService(local, { user: 'branch-agent', root: true, unitDir }, exec);
      await manager.define();
      expect(calls).toEqual([
        `chown -R branch-agent:branch-agent ${local.prefix}/logs ${local.prefix}/run`,
        `chown branch-agent:branch-agent ${local.downloadDir}`,
        'systemctl daemon-reload',
        'systemctl enable branch-agent.service',
        'systemctl enable --now branch-agent-upgrade.path',
      ]);
      expect(existsSync(local.downloadDir)).toBe(true);
      const units = renderUpgradeUnits(local, { user: 'branch-agent', root: true });
      for (const [name, text] of Object.entries(units.files)) expect(readFileSync(path.join(unitDir, name), 'utf8')).toBe(text);

      calls.length = 0;
      await manager.define();
      expect(calls).not.toContain('systemctl daemon-reload');

      calls.length = 0;
      await manager.remove();
      expect(calls).toEqual(['systemctl disable --now branch-agent-upgrade.path', 'systemctl disable --now branch-agent.service', 'systemctl daemon-reload']);
      expect(existsSync(path.join(unitDir, 'branch-agent-upgrade.service'))).toBe(false);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

/** Enough of XML to read a task definition: element paths to text. */
function xmlTexts(source: string): Map<string, string> {
  const texts = new Map<string, string>();
  const stack: string[] = [];
  for (const [, close, tag, body, selfClosing, text] of source
    .replace(/<\?xml[^>]*\?>|<!--[\s\S]*?-->/g, '')
    .matchAll(/<(\/?)([\w:]+)([^>]*?)(\/?)>|([^<]+)/g)) {
    if (text !== undefined) {
      if (text.trim())
        texts.set(
          stack.join('/'),
          text
            .replace(/&quot;/g, '"')
            .replace(/&lt;/g, '<')
            .replace(/&gt;/g, '>')
            .replace(/&amp;/g, '&'),
        );
    } else if (close) {
      expect(stack.pop(), 'closing tag').toBe(tag);
    } else if (!selfClosing) {
      stack.push(tag!);
      if (body?.includes('Context=')) texts.set(`${stack.join('/')}@Context`, /Context="([^"]+)"/.exec(body)![1]!);
    }
  }
  expect(stack).toEqual([]);
  return texts;
}

describe('the upgrade helper on Windows', () => {
  const spec: ServiceSpec = WINDOWS_SPEC;

  it('renders an on-demand task that runs the installed CLI as SYSTEM', () => {
    const task = renderUpgradeTaskXml(spec);
    expect(task.startsWith('<?xml version="1.0" encoding="UTF-16"?>\n')).toBe(true);
    const t = xmlTexts(task);
    expect(t.get('Task/Principals/Principal/UserId')).toBe('S-1-5-18');
    expect(t.get('Task/Principals/Principal/RunLevel')).toBe('HighestAvailable');
    expect([...t.keys()].some((k) => k.startsWith('Task/Triggers'))).toBe(false);
    expect(t.get('Task/Settings/AllowStartOnDemand')).toBe('true');
    expect(t.get('Task/Settings/MultipleInstancesPolicy')).toBe('IgnoreNew');
    expect(t.get('Task/Settings/ExecutionTimeLimit')).toBe('PT30M');
    expect(t.get('Task/Actions@Context')).toBe('Author');
    expect(t.get('Task/Actions/Exec/Command')).toBe(spec.node);
    expect(t.get('Task/Actions/Exec/Arguments')).toBe(
      '"C:\\Program Files\\branch-agent\\current\\bin\\branch-agent.js" service upgrade-request --prefix "C:\\Program Files\\branch-agent" --config "C:\\ProgramData\\branch-agent\\config.json" --manager winsw',
    );
    expect(t.get('Task/Actions/Exec/WorkingDirectory')).toBe(spec.prefix);
  });

  it('install registers the task from a UTF-16 file; uninstall deletes it', async () => {
    const work = mkdtempSync(path.join(tmpdir(), 'branch-agent-task-'));
    try {
      const local = {
        ...spec,
        prefix: path.join(work, 'prefix'),
        config: path.join(work, 'config.json'),
        logDir: path.join(work, 'logs'),
        downloadDir: path.join(work, 'downloads'),
      };
      mkdirSync(path.join(work, 'winsw'));
      writeFileSync(path.join(work, 'winsw', 'winsw.exe'), 'WinSW');
      const { calls, exec: record } = recorder();
      // WinSW, sc and schtasks as they answer: the task registered from its file, and shown back.
      let registered: string | undefined;
      let serviceInstalled = true;
      const exec: Exec = async (command, args) => {
        await record(command, args);
        if (command.endsWith('branch-agent.exe')) {
          if (args[0] === 'uninstall') serviceInstalled = false;
          return { code: 0, stdout: serviceInstalled ? 'Stopped' : 'NonExistent', stderr: '' };
        }
        if (command === 'sc')
          return serviceInstalled ? { code: 0, stdout: `SERVICE_NAME: ${args[1]}`, stderr: '' } : { code: 1060, stdout: '', stderr: 'not installed' };
        if (args[0] === '/Create') registered = readFileSync(args[4]!).subarray(2).toString('utf16le');
        if (args[0] === '/Delete') registered = undefined;
        return args[0] === '/Query' && registered === undefined
          ? { code: 1, stdout: '', stderr: 'not found' }
          : { code: 0, stdout: registered ?? '', stderr: '' };
      };
      const manager = winswService(local, { winsw: path.join(work, 'winsw', 'winsw.exe') }, exec);
      await manager.define();
      const taskFile = path.join(local.prefix, 'service', 'branch-agent-upgrade.xml');
      expect(calls.filter((c) => c.startsWith('schtasks'))).toEqual([
        `schtasks /Create /TN branch-agent-upgrade /XML ${taskFile} /F`,
        'schtasks /Query /TN branch-agent-upgrade /XML',
      ]);
      const bytes = readFileSync(taskFile);
      expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
      expect(bytes.subarray(2).toString('utf16le')).toBe(renderUpgradeTaskXml(local));
      expect(existsSync(local.downloadDir)).toBe(true);
      calls.length = 0;
      await manager.remove();
      expect(calls[0]).toBe('schtasks /Delete /TN branch-agent-upgrade /F');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('which hand-over an installed agent uses', () => {
  it('asks the helper under systemd and WinSW, starts the installer itself as a background process', () => {
    const work = mkdtempSync(path.join(tmpdir(), 'branch-agent-manager-'));
    try {
      const layout = layoutOf(work);
      expect(managerOf(layout, { INVOCATION_ID: 'abc' }, 'linux', 42)).toBe('systemd');
      expect(managerOf(layout, {}, 'linux', 42)).toBe('background');
      expect(managerOf(layout, {}, 'win32', 42)).toBe('winsw');
      mkdirSync(layout.run);
      writeFileSync(path.join(layout.run, 'branch-agent.pid'), '42\n');
      expect(managerOf(layout, {}, 'win32', 42)).toBe('background');
      expect(managerOf(layout, {}, 'win32', 43)).toBe('winsw');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('requests, carried out and refused for real', () => {
  let work: string;
  let prefix: string;
  let config: string;
  let downloads: string;
  let healthPort: number;
  let releaseDir: string;
  let keyFile: string;
  const tarballs = new Map<string, { file: string; manifest: ReleaseManifest }>();

  const options = (): InstallerOptions => ({
    prefix,
    config,
    manager: 'background',
    node: process.execPath,
    healthTimeoutMs: 20_000,
    settleMs: 1_000,
    log: () => undefined,
  });
  const current = () => readlinkSync(path.join(prefix, 'current'));
  const lastUpgrade = () => JSON.parse(readFileSync(path.join(prefix, 'state/last-upgrade.json'), 'utf8')) as Record<string, unknown>;
  const healthVersion = async () =>
    ((await (await fetch(`http://127.0.0.1:${healthPort}/healthz`, { signal: AbortSignal.timeout(2_000) })).json()) as { version: string }).version;
  const request = (r: Partial<UpgradeRequest> & Pick<UpgradeRequest, 'release' | 'tarball'>) =>
    writeFileSync(path.join(downloads, 'upgrade-request.json'), JSON.stringify({ requestedAt: new Date().toISOString(), ...r }));

  /** A release folder of this build as `version`, packed as make-release.sh would, signed with `key`. */
  const pack = async (version: string, key: string, claims = version) => {
    const dir = stampRelease(releaseDir, path.join(work, 'packing', `branch-agent-${version}-linux`), version);
    const file = path.join(downloads, `branch-agent-${claims}-linux.tar.gz`);
    expect(spawnSync('tar', ['-czf', file, '-C', path.dirname(dir), path.basename(dir)]).status).toBe(0);
    rmSync(dir, { recursive: true, force: true });
    const manifest = await signTarball(file, claims, 'linux', key);
    tarballs.set(claims, { file, manifest });
    return { file, manifest };
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), 'branch-agent-helper-'));
    prefix = path.join(work, 'prefix');
    config = path.join(work, 'etc', 'config.json');
    downloads = path.join(work, 'etc', 'downloads');
    mkdirSync(downloads, { recursive: true });
    releaseDir = buildAgentRelease(work).dir;

    const keys = generateKeyPairSync('ed25519');
    keyFile = path.join(work, 'etc', 'release.key');
    writeFileSync(keyFile, keys.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(path.join(work, 'etc', 'release.pub'), keys.publicKey.export({ type: 'spki', format: 'pem' }));
    healthPort = await freePort();
    writeFileSync(
      config,
      JSON.stringify({
        agent: {
          licenseKey: 'TEST000000000001',
          gatewayUrl: `http://127.0.0.1:${await freePort()}`,
          token: 'agt_test',
          database: await newPosDatabase(),
          health: { host: '127.0.0.1', port: healthPort },
          log: { level: 'warn' },
          upgrades: { publicKeyFile: 'release.pub', healthTimeoutSeconds: 20 },
        },
      }),
    );
    const first = path.join(work, 'branch-agent-9.3.0');
    cpSync(releaseDir, first, { recursive: true, verbatimSymlinks: true });
    const pkg = JSON.parse(readFileSync(path.join(first, 'package.json'), 'utf8')) as object;
    writeFileSync(path.join(first, 'package.json'), JSON.stringify({ ...pkg, version: '9.3.0' }));
    const installed = await upgrade({ ...options(), releaseDir: first });
    expect(installed.exitCode, installed.message).toBe(0);
  }, 240_000);

  afterAll(async () => {
    if (prefix && existsSync(path.join(prefix, 'current'))) await uninstall(options());
    // An agent an upgrade started and the uninstall did not stop (it kills the pid file's only).
    if (work) await endProcessesUnder(work);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('reads the download folder and the public key from the config, as the agent does', () => {
    expect(upgradeSettingsOf(config)).toEqual({ downloadDir: downloads, publicKeyFile: path.join(work, 'etc', 'release.pub'), healthTimeoutSeconds: 20 });
  });

  it('does nothing without a request', async () => {
    expect(await takeUpgradeRequest(options())).toBeUndefined();
  });

  it('carries out a request: checked, upgraded, recorded, the request taken', async () => {
    const { file, manifest } = await pack('9.3.1', keyFile);
    request({ release: manifest, tarball: file });
    const result = await takeUpgradeRequest(options());
    expect(result, result?.message).toMatchObject({ exitCode: 0, current: '9.3.1', previous: '9.3.0' });
    expect(current()).toBe('releases/9.3.1');
    expect(await healthVersion()).toBe('9.3.1');
    expect(lastUpgrade()).toMatchObject({ action: 'upgrade', outcome: 'installed', from: '9.3.0', to: '9.3.1' });
    expect(existsSync(path.join(downloads, 'upgrade-request.json'))).toBe(false);
    // The checked copy is gone; the agent's download is left to the agent.
    expect(readFileSync(file).length).toBeGreaterThan(0);
  }, 90_000);

  const refused = async (reason: RegExp) => {
    const result = await takeUpgradeRequest(options());
    expect(result, result?.message).toMatchObject({ exitCode: 1, outcome: 'not-switched', current: '9.3.1' });
    expect(result!.message).toMatch(reason);
    expect(lastUpgrade()).toMatchObject({ action: 'upgrade', outcome: 'not-switched', exitCode: 1, current: '9.3.1' });
    expect(lastUpgrade().reason).toMatch(reason);
    expect(current()).toBe('releases/9.3.1');
    expect(await healthVersion()).toBe('9.3.1');
    expect(existsSync(path.join(downloads, 'upgrade-request.json'))).toBe(false);
    const logged = readFileSync(path.join(prefix, 'logs', 'upgrade.log'), 'utf8')
      .trimEnd()
      .split('\n')
      .at(-1)!;
    expect(logged.replace(/^\S+ /, '')).toMatch(reason);
  };

  it('refuses bytes that are not the signed ones', async () => {
    const { file, manifest } = await pack('9.3.2', keyFile);
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from('appended')]));
    request({ release: manifest, tarball: file });
    await refused(/^upgrade request refused: the sha256 of .*9\.3\.2-linux\.tar\.gz is [0-9a-f]{64}, not the signed [0-9a-f]{64}$/);
    expect(existsSync(path.join(prefix, 'releases/9.3.2'))).toBe(false);
  }, 30_000);

  it('refuses a signed tarball outside the download folder, and a link to one', async () => {
    const { file, manifest } = await pack('9.3.3', keyFile);
    const outside = path.join(work, 'elsewhere.tar.gz');
    cpSync(file, outside);
    request({ release: manifest, tarball: outside });
    await refused(/^upgrade request refused: .*elsewhere\.tar\.gz is not a file in the download folder .*downloads$/);
    const link = path.join(downloads, 'link.tar.gz');
    symlinkSync(outside, link);
    request({ release: manifest, tarball: link });
    await refused(/link\.tar\.gz is not a file in the download folder/);
    // Not normalized: the helper resolves it, and it leads out of the folder.
    request({ release: manifest, tarball: `${downloads}/../../elsewhere.tar.gz` });
    await refused(/is not a file in the download folder/);
  }, 30_000);

  it('refuses a release signed by another key, and one that holds another version than the signed', async () => {
    const other = path.join(work, 'other.key');
    writeFileSync(other, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const foreign = await pack('9.3.4', other);
    request({ release: foreign.manifest, tarball: foreign.file });
    await refused(/^upgrade request refused: release 9\.3\.4 is not signed by the key in upgrades\.publicKeyFile$/);
    // A signed tarball of 9.3.0 passed off as 9.3.5.
    const relabelled = await pack('9.3.0', keyFile, '9.3.5');
    request({ release: relabelled.manifest, tarball: relabelled.file });
    const result = await takeUpgradeRequest(options());
    expect(result).toMatchObject({ exitCode: 1, outcome: 'not-switched', current: '9.3.1' });
    expect(lastUpgrade()).toMatchObject({
      to: '9.3.5',
      outcome: 'not-switched',
      reason: expect.stringMatching(/holds release 9\.3\.0, not the signed 9\.3\.5/),
    });
    expect(current()).toBe('releases/9.3.1');
  }, 60_000);

  it('refuses what is not a request', async () => {
    writeFileSync(path.join(downloads, 'upgrade-request.json'), JSON.stringify({ tarball: '/etc/shadow' }));
    await refused(/^upgrade request refused: the request is not valid: release: /);
  });

  it("the agent's side: writes the request, starts the task (Windows), and reports the helper's refusal", async () => {
    const { file, manifest } = tarballs.get('9.3.2')!;
    const { calls, exec } = recorder();
    const installer = requestingInstaller({ manager: 'winsw', layout: layoutOf(prefix), downloadDir: downloads, exec, pollMs: 50 });
    const reasons: string[] = [];
    await installer(file, manifest, (reason) => reasons.push(reason));
    expect(calls).toEqual(['schtasks /Run /TN branch-agent-upgrade']);
    const written = JSON.parse(readFileSync(path.join(downloads, 'upgrade-request.json'), 'utf8')) as UpgradeRequest;
    expect(written).toMatchObject({ release: manifest, tarball: file });
    // What the task runs, here by hand: the tarball was changed after the agent checked it.
    await takeUpgradeRequest(options());
    await until(() => reasons.length > 0, 5_000, 20);
    expect(reasons).toEqual([expect.stringMatching(/^upgrade request refused: the sha256 of .* is [0-9a-f]{64}, not the signed/)]);
    expect(await healthVersion()).toBe('9.3.1');
  }, 30_000);

  it("the agent's side: a task that cannot be started fails the upgrade at once, the request withdrawn", async () => {
    const { file, manifest } = tarballs.get('9.3.2')!;
    const { exec } = recorder({ 'schtasks /Run /TN branch-agent-upgrade': 1 });
    const installer = requestingInstaller({ manager: 'winsw', layout: layoutOf(prefix), downloadDir: downloads, exec });
    await expect(installer(file, manifest, () => undefined)).rejects.toThrow(
      /^schtasks \/Run \/TN branch-agent-upgrade failed \(exit 1\): ERROR: Access is denied\.; run branch-agent service install as Administrator/,
    );
    expect(existsSync(path.join(downloads, 'upgrade-request.json'))).toBe(false);
  });

  it("the agent's side: a request no helper takes fails the upgrade, withdrawn", async () => {
    const { file, manifest } = tarballs.get('9.3.2')!;
    const reasons: string[] = [];
    const installer = requestingInstaller({ manager: 'systemd', layout: layoutOf(prefix), downloadDir: downloads, pollMs: 50, pickupMs: 1_000 });
    await installer(file, manifest, (reason) => reasons.push(reason));
    await until(() => reasons.length > 0, 5_000, 20);
    expect(reasons).toEqual([
      'no upgrade helper took the request within 1 s: run branch-agent service install as root or Administrator to set up the branch-agent-upgrade.path unit',
    ]);
    expect(existsSync(path.join(downloads, 'upgrade-request.json'))).toBe(false);
  });

  it('records an installer that cannot start as the answer, for the agent to report', async () => {
    const { file, manifest } = tarballs.get('9.3.3')!;
    writeFileSync(path.join(prefix, '.install.lock'), `${process.pid}\n`);
    try {
      request({ release: manifest, tarball: file });
      const result = await takeUpgradeRequest(options());
      expect(result).toMatchObject({ exitCode: 1, outcome: 'not-switched', current: '9.3.1' });
      expect(lastUpgrade()).toMatchObject({
        to: '9.3.3',
        reason: `the installer could not carry out the upgrade request: another installer (pid ${process.pid}) is working on ${prefix}`,
      });
    } finally {
      rmSync(path.join(prefix, '.install.lock'));
    }
  });

  it("the agent's side under systemd: only the request file, which the path unit watches", async () => {
    const { file, manifest } = tarballs.get('9.3.2')!;
    const { calls, exec } = recorder();
    await requestingInstaller({ manager: 'systemd', layout: layoutOf(prefix), downloadDir: downloads, exec, pollMs: 50 })(file, manifest, () => undefined);
    expect(calls).toEqual([]);
    const spec: ServiceSpec = { name: 'branch-agent', prefix, config, node: process.execPath, logDir: path.join(prefix, 'logs'), downloadDir: downloads };
    const watched = renderUpgradeUnits(spec, { user: 'branch-agent', root: true }).files['branch-agent-upgrade.path'];
    expect(watched).toContain(`PathExists=${path.join(downloads, 'upgrade-request.json')}`);
    expect(existsSync(path.join(downloads, 'upgrade-request.json'))).toBe(true);
    rmSync(path.join(downloads, 'upgrade-request.json'));
  });
});
