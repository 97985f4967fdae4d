/**
 * The Linux service as docs/install.md describes it: the config written "readable by root and
 * the service account" (step 1), and the systemd unit `branch-agent` "restarts always, 5 s
 * apart; 30 s to stop; after the network and a local mssql-server", "run by the system user
 * `branch-agent` (created)" (step 4). The unit is read back as systemd reads it (sections,
 * keys, repeated After= lines adding up); the commands are recorded, not run.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTemplateIfMissing } from '../../src/agent/installer/config-file.js';
import { renderUnit, systemdService } from '../../src/agent/installer/systemd.js';
import { recorder } from '../support/command-recorder.js';
import { serviceSpecAt } from '../support/windows-service-spec.js';

const work = mkdtempSync(path.join(tmpdir(), 'branch-agent-systemd-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const prefix = '/opt/branch-agent';
const config = path.join(work, 'etc', 'branch-agent', 'config.json');
const spec = serviceSpecAt(prefix, config, `${prefix}/current/runtime/node`);

/** A unit file's settings by section: each key's values in order (systemd adds repeated list settings up). */
function readUnit(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let section: Record<string, string[]> | undefined;
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = sections[header[1]!] = {};
      continue;
    }
    const [, key, value] = /^(\w+)=(.*)$/.exec(line) ?? [];
    expect(key, `a setting outside a section or not key=value: ${line}`).toBeDefined();
    expect(section, `a setting before any section: ${line}`).toBeDefined();
    (section![key!] ??= []).push(value!);
  }
  return sections;
}

describe('the systemd unit, as root', () => {
  const unit = readUnit(renderUnit(spec, { user: 'branch-agent', root: true }));

  it('restarts the agent always, 5 s apart, and never gives up', () => {
    expect(unit.Service!.Restart).toEqual(['always']);
    expect(unit.Service!.RestartSec).toEqual(['5']);
    // systemd would stop restarting after 5 starts in 10 s (its default start limit) but for this.
    expect(unit.Unit!.StartLimitIntervalSec).toEqual(['0']);
  });

  it('gives it 30 s to stop', () => {
    expect(unit.Service!.TimeoutStopSec).toEqual(['30']);
  });

  it('starts after the network and a local mssql-server', () => {
    const after = unit.Unit!.After!.flatMap((v) => v.split(/\s+/));
    expect(after).toEqual(expect.arrayContaining(['network-online.target', 'mssql-server.service']));
    // After= orders only: the network must also be asked for, and SQL Server must not be required (it may run elsewhere).
    expect(unit.Unit!.Wants).toEqual(['network-online.target']);
    expect(unit.Unit!.Requires).toBeUndefined();
  });

  it('runs as the system user branch-agent, at boot, the release `current` points at', () => {
    expect(unit.Service!.User).toEqual(['branch-agent']);
    expect(unit.Install!.WantedBy).toEqual(['multi-user.target']);
    expect(unit.Service!.ExecStart![0]).toMatch(
      new RegExp(`^"${prefix}/current/runtime/node" .*"${prefix}/current/bin/branch-agent\\.js" run -c "${config.replace(/[.]/g, '\\.')}"$`),
    );
  });

  it('is the unit the service definition installs', async () => {
    const unitDir = path.join(work, 'units');
    const { exec } = recorder();
    await systemdService(spec, { user: 'branch-agent', root: true, unitDir }, exec).define();
    expect(readFileSync(path.join(unitDir, 'branch-agent.service'), 'utf8')).toBe(renderUnit(spec, { user: 'branch-agent', root: true }));
  });
});

describe("the config folder's permissions, as root", () => {
  mkdirSync(path.dirname(config), { recursive: true });

  it('creates the system user branch-agent when there is none, then lets only it and root read the config', async () => {
    const { calls, exec } = recorder({ 'id -u branch-agent': 1 });
    await systemdService(spec, { user: 'branch-agent', root: true }, exec).secureConfig();
    expect(calls).toEqual([
      'id -u branch-agent',
      `useradd --system --user-group --home-dir ${prefix} --no-create-home --shell /usr/sbin/nologin --comment Soft Restaurant branch agent branch-agent`,
      `chgrp branch-agent ${config}`,
      `chmod g+r ${config}`,
      `chgrp branch-agent ${path.dirname(config)}`,
      `chmod 1770 ${path.dirname(config)}`,
    ]);
  });

  it('uses the user that exists', async () => {
    const { calls, exec } = recorder();
    await systemdService(spec, { user: 'branch-agent', root: true }, exec).secureConfig();
    expect(calls[0]).toBe('id -u branch-agent');
    expect(calls.some((c) => c.startsWith('useradd'))).toBe(false);
    expect(calls.slice(1)).toEqual([
      `chgrp branch-agent ${config}`,
      `chmod g+r ${config}`,
      `chgrp branch-agent ${path.dirname(config)}`,
      `chmod 1770 ${path.dirname(config)}`,
    ]);
  });

  it('writes the config template for its owner and group only', () => {
    const releaseDir = path.join(work, 'release');
    mkdirSync(releaseDir);
    writeFileSync(path.join(releaseDir, 'config.example.json'), JSON.stringify({ agent: { licenseKey: 'X' }, gateway: {} }));
    expect(writeTemplateIfMissing(config, releaseDir)).toBe(true);
    // Owner read-write, group (branch-agent, after chgrp) read, others nothing.
    expect(statSync(config).mode & 0o777).toBe(0o640);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({ agent: { licenseKey: 'X' } });
  });
});
