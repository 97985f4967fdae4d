/**
 * The installer as a running agent hands over to it for a remote upgrade (issue 16). The
 * installer stops the agent, so it must run outside it: a background process's agent starts it
 * as a detached process of its own with this release's runtime and CLI (`service upgrade
 * <tarball>`), its output appended to <prefix>/logs/upgrade.log; a systemd or WinSW service's
 * agent asks the helper the installer set up (upgrade-request.ts). An agent not started from an
 * installed release (a source checkout, the demo, the tests) has no installer.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Installer } from '../upgrades.js';
import type { ManagerKind } from './choose-manager.js';
import { layoutOf, type Layout } from './layout.js';
import { runningReleaseDir } from './release.js';
import { readLastUpgrade } from './state.js';
import { requestingInstaller } from './upgrade-request.js';

/** The release directory this agent runs from, when it is one the installer put under <prefix>/releases. */
function installedRelease(): { prefix: string; releaseDir: string } | undefined {
  try {
    const releaseDir = runningReleaseDir();
    if (path.basename(path.dirname(releaseDir)) !== 'releases') return undefined;
    return { prefix: path.dirname(path.dirname(releaseDir)), releaseDir };
  } catch {
    return undefined;
  }
}

/**
 * The service manager running this agent: systemd sets INVOCATION_ID in the units it runs; the
 * background process manager records the agent's pid under <prefix>/run (so a Windows agent
 * installed with --manager background is told from the WinSW service, the Windows default).
 */
export function managerOf(layout: Layout, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, pid = process.pid): ManagerKind {
  if (platform !== 'win32') return env.INVOCATION_ID ? 'systemd' : 'background';
  try {
    return Number(readFileSync(path.join(layout.run, 'branch-agent.pid'), 'utf8').trim()) === pid ? 'background' : 'winsw';
  } catch {
    return 'winsw';
  }
}

export function installerForThisAgent(configPath: string, downloadDir: string, healthTimeoutSeconds: number): Installer | undefined {
  const installed = installedRelease();
  if (!installed) return undefined;
  const { prefix, releaseDir } = installed;
  const layout = layoutOf(prefix);
  return (tarball, release, failed) => {
    // Decided at hand-over: the background manager writes the pid file just after starting the agent.
    const manager = managerOf(layout);
    if (manager !== 'background') return requestingInstaller({ manager, layout, downloadDir })(tarball, release, failed);
    mkdirSync(layout.logs, { recursive: true });
    const out = openSync(path.join(layout.logs, 'upgrade.log'), 'a');
    try {
      const args = [
        'service',
        'upgrade',
        tarball,
        '--prefix',
        prefix,
        '--config',
        configPath,
        '--manager',
        manager,
        '--health-timeout',
        String(healthTimeoutSeconds),
      ];
      const child = spawn(process.execPath, [path.join(releaseDir, 'bin', 'branch-agent.js'), ...args], {
        cwd: prefix,
        detached: true,
        stdio: ['ignore', out, out],
        windowsHide: true,
      });
      // Exit codes 1 and 2 leave this agent running (nothing was switched): it says why. After a
      // switch this process is gone, and the agent that runs next reports.
      child.on('exit', (code) => {
        if (code !== 1 && code !== 2) return;
        const record = readLastUpgrade(layout);
        failed(record?.reason ?? `the installer stopped before switching (exit ${code}); see ${path.join(layout.logs, 'upgrade.log')}`);
      });
      child.unref();
      return Promise.resolve();
    } finally {
      closeSync(out);
    }
  };
}

/** The installer's record of its last upgrade, once it finished one to `version` begun since `since`. */
export function installerRecord(version: string, since: Date): { outcome: string; reason?: string } | undefined {
  const installed = installedRelease();
  const record = installed && readLastUpgrade(layoutOf(installed.prefix));
  if (!record || record.action !== 'upgrade' || record.to !== version || Date.parse(record.startedAt) < since.getTime() - 1_000) return undefined;
  return { outcome: record.outcome, reason: record.reason };
}
