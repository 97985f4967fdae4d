/**
 * The upgrade helper's side run for real in a temp prefix: an installed agent (a real background
 * process, on a real PostgreSQL POS database) is upgraded from a request, and forged requests
 * (bytes that are not the signed ones, a file outside the download folder, a link, a foreign
 * signature, a tarball that holds another version) are refused, recorded, and reported by the
 * agent's side (whose commands are recorded) as the reason it failed, while the installed agent
 * keeps running.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { layoutOf } from '../../src/agent/installer/layout.js';
import type { ServiceSpec } from '../../src/agent/installer/service-manager.js';
import { renderUpgradeUnits } from '../../src/agent/installer/systemd-upgrade-units.js';
import { takeUpgradeRequest } from '../../src/agent/installer/upgrade-helper.js';
import { requestingInstaller, upgradeSettingsOf, type UpgradeRequest } from '../../src/agent/installer/upgrade-request.js';
import { upgrade, uninstall, type InstallerOptions } from '../../src/agent/installer/upgrade.js';
import { signTarball } from '../../src/gateway/fleet/release-files.js';
import type { ReleaseManifest } from '../../src/protocol/releases.js';
import { buildAgentRelease, stampRelease } from '../support/agent-release.js';
import { newPosDatabase } from '../support/databases.js';
import { endProcessesUnder } from '../support/processes.js';
import { until } from '../support/until.js';
import { recorder } from '../support/command-recorder.js';

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
