/**
 * Remote upgrades under systemd and WinSW (issue 16): the agent drops a request in its download
 * folder and a privileged helper the installer set up takes it (upgrade-request.ts,
 * upgrade-helper.ts). Tested like the service adapters: the helper's systemd units and Windows
 * task are rendered and the exact commands the installer would run are recorded; and which
 * hand-over an installed agent uses.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { layoutOf } from '../../src/agent/installer/layout.js';
import { managerOf } from '../../src/agent/installer/remote-upgrade.js';
import type { Exec, ServiceSpec } from '../../src/agent/installer/service-manager.js';
import { systemdService } from '../../src/agent/installer/systemd.js';
import { renderUpgradeUnits } from '../../src/agent/installer/systemd-upgrade-units.js';
import { winswService } from '../../src/agent/installer/winsw.js';
import { renderUpgradeTaskXml } from '../../src/agent/installer/windows-upgrade-task.js';
import { WINDOWS_SPEC } from '../support/windows-service-spec.js';
import { recorder } from '../support/command-recorder.js';

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
