/**
 * The installer's algorithm, the same for every platform: `branch-agent service install` and
 * `service upgrade` run it from the command line, and the running agent will run it for remote
 * rollouts (issue 16) through `upgrade()`.
 *
 * `upgrade({ tarball | releaseDir, prefix, config, manager, ... })`:
 *   1. reads the release (a tarball is unpacked under <prefix>/releases/ first);
 *   2. when `config` does not exist, writes a template there and stops (exit code 2);
 *   3. copies the release to <prefix>/releases/<version>, beside the ones installed before;
 *   4. applies the agent's migrations with that release's own runtime and code; if they fail,
 *      nothing is switched (exit code 1) and the running agent keeps running;
 *   5. defines (or updates) the service, waits until the running agent runs no job (up to 30 s;
 *      its graceful stop finishes any job that starts after), stops it, points `current` at
 *      the new release and starts it;
 *   6. waits until /healthz answers with the new version and keeps answering for `settleMs`;
 *      if it does not within `healthTimeoutMs`, points `current` back at the previous release
 *      and starts that (exit code 3, or 4 when there is none or it is not healthy either);
 *   7. keeps the newest `keep` releases (never the new or the previous one);
 *   8. records what happened in <prefix>/state/last-upgrade.json.
 *
 * It resolves an `UpgradeResult` (exitCode 0 installed and healthy, 1 stopped before switching,
 * 2 config template written, 3 rolled back, 4 unhealthy with nothing healthy to go back to) and
 * rejects only when it cannot even start (another installer holds the prefix). It stops the
 * service: a running agent must call it from a process of its own that outlives the agent (a
 * detached child of a background process; under systemd and WinSW the helper the installer
 * sets up, upgrade-request.ts), and only between jobs: it never stops an agent that reports a running job
 * until that job has finished or 30 s have passed.
 */
import { cpSync, existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { healthUrl, writeTemplateIfMissing } from './config-file.js';
import { waitHealthy, waitIdle } from './health-wait.js';
import { currentVersion, ensureDirs, installedVersions, layoutOf, lockPrefix, pruneReleases, stageCurrent, type Layout } from './layout.js';
import { bundledNode, migrateRelease, readRelease, unpackRelease } from './release.js';
import { exec as realExec, InstallStepError, type Exec, type ServiceManager } from './service-manager.js';
import { chooseServiceManager, type ManagerKind } from './choose-manager.js';
import { readLastUpgrade, writeLastUpgrade, type Outcome, type UpgradeRecord } from './state.js';
import { upgradeSettingsOf } from './upgrade-request.js';

export const EXIT = { installed: 0, notSwitched: 1, configTemplate: 2, rolledBack: 3, unhealthy: 4 } as const;

export interface InstallerOptions {
  prefix: string;
  config: string;
  manager: ManagerKind;
  /** Node.js for the service and the migrations; default the release's runtime/ (this process's node without one). */
  node?: string;
  healthTimeoutMs?: number;
  settleMs?: number;
  /** Releases kept under <prefix>/releases (default 3). */
  keep?: number;
  /** systemd as root: the service account (default branch-agent). */
  user?: string;
  /** Windows: the WinSW executable (default the release's service-install/winsw/winsw.exe). */
  winsw?: string;
  log?: (line: string) => void;
  /** How external commands run (systemctl, winsw.exe); tests record them instead. */
  exec?: Exec;
}

export interface UpgradeOptions extends InstallerOptions {
  /** A release tarball from make-release.sh... */
  tarball?: string;
  /** ...or an unpacked release folder. */
  releaseDir?: string;
  /** The version a signature vouched for: a release that says otherwise is not installed. */
  expectedVersion?: string;
  /** The agent's request this upgrade carries out, recorded with the outcome. */
  requestedAt?: string;
}

export interface UpgradeResult {
  exitCode: number;
  outcome: Outcome;
  /** The release asked for. */
  version: string;
  /** The release that ran before. */
  previous?: string;
  /** The release `current` points at afterwards. */
  current?: string;
  message: string;
}

const SERVICE_NAME = 'branch-agent';

/** The installer's context for one run: the prefix, its service manager, and how it logs. */
function context(opts: InstallerOptions, releaseDir: string) {
  const layout = layoutOf(opts.prefix);
  const config = path.resolve(opts.config);
  const runtime = bundledNode(releaseDir);
  const node = opts.node ? path.resolve(opts.node) : runtime ? path.join(layout.prefix, 'current', runtime) : process.execPath;
  const run = opts.exec ?? realExec;
  const manager = chooseServiceManager(
    opts.manager,
    { name: SERVICE_NAME, prefix: layout.prefix, config, node, logDir: layout.logs, downloadDir: upgradeSettingsOf(config).downloadDir },
    {
      user: opts.user ?? SERVICE_NAME,
      winsw: opts.winsw ?? path.join(releaseDir, 'service-install', 'winsw', 'winsw.exe'),
    },
    run,
  );
  return { layout, config, manager, log: opts.log ?? ((line: string) => console.log(line)) };
}

/**
 * Stops the agent, points `current` at `version`, starts it and waits for it; the reason it is
 * not healthy, if it is not. A link that cannot be made, or an agent that cannot be stopped,
 * throws an InstallStepError with the running release as it was (started again if stopped).
 */
async function switchTo(version: string, layout: Layout, manager: ServiceManager, url: string, opts: InstallerOptions, log: (line: string) => void) {
  const staged = stageCurrent(layout, version);
  try {
    await manager.stop();
  } catch (error) {
    staged.discard();
    throw error;
  }
  try {
    staged.commit();
  } catch (error) {
    await manager.start();
    throw error;
  }
  log(`==> current -> releases/${version}; starting the agent`);
  try {
    await manager.start();
  } catch (error) {
    return `it could not be started: ${(error as Error).message}`;
  }
  return waitHealthy({ url, version, timeoutMs: opts.healthTimeoutMs ?? 60_000, settleMs: opts.settleMs ?? 5_000, alive: () => manager.alive() });
}

/** The sentence of an install that stopped at a step that did not take. */
const stoppedAt = (error: InstallStepError, previous: string | undefined) =>
  `${error.message}. Nothing was switched${previous ? `; ${previous} keeps running` : ''}: fix the cause and run the installer again.`;

export async function upgrade(opts: UpgradeOptions): Promise<UpgradeResult> {
  const startedAt = new Date().toISOString();
  const layout = layoutOf(opts.prefix);
  ensureDirs(layout);
  const unpacked = opts.tarball ? await unpackRelease(opts.tarball, layout.releases) : undefined;
  const sourceDir = unpacked?.release ?? path.resolve(opts.releaseDir ?? '.');
  try {
    const release = readRelease(sourceDir);
    const { config, manager, log } = context(opts, sourceDir);
    const record = (result: Omit<UpgradeResult, 'version' | 'previous'>, previous?: string): UpgradeResult => {
      const full = { ...result, version: release.version, previous };
      const entry: UpgradeRecord = {
        action: previous === undefined ? 'install' : 'upgrade',
        outcome: full.outcome,
        exitCode: full.exitCode,
        from: previous,
        // What was asked for: the agent that asked finds its answer by it.
        to: opts.expectedVersion ?? release.version,
        current: full.current,
        reason: full.exitCode === 0 ? undefined : full.message,
        requestedAt: opts.requestedAt,
        startedAt,
        finishedAt: new Date().toISOString(),
      };
      writeLastUpgrade(layout, entry);
      return full;
    };

    if (opts.expectedVersion !== undefined && release.version !== opts.expectedVersion) {
      const running = currentVersion(layout);
      return record(
        {
          exitCode: EXIT.notSwitched,
          outcome: 'not-switched',
          current: running,
          message: `the tarball holds release ${release.version}, not the signed ${opts.expectedVersion}: nothing was switched`,
        },
        running,
      );
    }
    try {
      if (writeTemplateIfMissing(config, sourceDir)) {
        await manager.secureConfig();
        return {
          exitCode: EXIT.configTemplate,
          outcome: 'config-template',
          version: release.version,
          message: `No configuration yet: wrote a template to ${config}. Fill in agent.licenseKey, agent.gatewayUrl, agent.token (from \`branch-agent keys add-branch\`) and agent.database, check it with \`branch-agent doctor -c ${config}\`, then run the installer again.`,
        };
      }
      const url = healthUrl(config);
      await manager.secureConfig();
      const unlock = lockPrefix(layout);
      try {
        const previous = currentVersion(layout);
        log(`==> Installing branch-agent ${release.version} under ${layout.prefix} (${manager.kind}${previous ? `, running: ${previous}` : ''})`);

        const target = path.join(layout.releases, release.version);
        if (previous === release.version && existsSync(target)) {
          log(`    ${release.version} is the current release: its files are kept (the running agent uses them)`);
        } else if (path.resolve(sourceDir) !== target) {
          const staging = path.join(layout.releases, `.staging-${release.version}-${process.pid}`);
          rmSync(staging, { recursive: true, force: true });
          // A tarball's release is moved, not copied: it is already under releases/.
          if (unpacked && unpacked.release !== unpacked.root) renameSync(sourceDir, staging);
          else cpSync(sourceDir, staging, { recursive: true, verbatimSymlinks: true });
          rmSync(target, { recursive: true, force: true });
          renameSync(staging, target);
          log(`    copied to ${target}`);
        }

        log("==> Applying the agent's database migrations");
        const runtime = bundledNode(target);
        const failure = await migrateRelease(target, opts.node ? path.resolve(opts.node) : runtime ? path.join(target, runtime) : process.execPath, config);
        if (failure !== undefined) {
          return record(
            {
              exitCode: EXIT.notSwitched,
              outcome: 'not-switched',
              current: previous,
              message: `The migrations of ${release.version} failed: nothing was switched${previous ? `; ${previous} keeps running` : ''}. Fix the cause (\`branch-agent doctor -c ${config}\` checks everything) and run the installer again.\n${failure}`,
            },
            previous,
          );
        }

        await manager.define();
        await waitIdle(url, 30_000);
        const unhealthy = await switchTo(release.version, layout, manager, url, opts, log);
        if (unhealthy === undefined) {
          const removed = pruneReleases(layout, opts.keep ?? 3, [release.version, previous]);
          if (removed.length > 0) log(`    removed old releases: ${removed.join(', ')}`);
          const kept = previous && previous !== release.version ? ` (previous: ${previous}, kept for rollback)` : '';
          return record(
            {
              exitCode: EXIT.installed,
              outcome: 'installed',
              current: release.version,
              message: `branch-agent ${release.version} is installed and healthy${kept}.`,
            },
            previous,
          );
        }

        log(`    ${release.version} is not healthy: ${unhealthy}`);
        if (previous && previous !== release.version && installedVersions(layout).includes(previous)) {
          log(`==> Rolling back to ${previous}`);
          // Past the switch, a step that does not take on the way back leaves nothing healthy: said as such.
          const stillUnhealthy = await switchTo(previous, layout, manager, url, opts, log).catch((error: unknown) => {
            if (error instanceof InstallStepError) return error.message;
            throw error;
          });
          if (stillUnhealthy === undefined) {
            return record(
              {
                exitCode: EXIT.rolledBack,
                outcome: 'rolled-back',
                current: previous,
                message: `branch-agent ${release.version} did not become healthy (${unhealthy}). Rolled back: ${previous} is running and healthy again. The failed release stays in ${target}; its output is in ${manager.logsHint}.`,
              },
              previous,
            );
          }
          return record(
            {
              exitCode: EXIT.unhealthy,
              outcome: 'unhealthy',
              current: previous,
              message: `branch-agent ${release.version} did not become healthy (${unhealthy}), and neither did ${previous} after the rollback (${stillUnhealthy}). Check ${manager.logsHint} and run \`branch-agent doctor -c ${config}\`.`,
            },
            previous,
          );
        }
        return record(
          {
            exitCode: EXIT.unhealthy,
            outcome: 'unhealthy',
            current: release.version,
            message: `branch-agent ${release.version} did not become healthy (${unhealthy}) and there is no other release to roll back to. Check ${manager.logsHint} and run \`branch-agent doctor -c ${config}\`.`,
          },
          previous,
        );
      } finally {
        unlock();
      }
    } catch (error) {
      if (!(error instanceof InstallStepError)) throw error;
      const running = currentVersion(layout);
      return record({ exitCode: EXIT.notSwitched, outcome: 'not-switched', current: running, message: stoppedAt(error, running) }, running);
    }
  } finally {
    if (unpacked) rmSync(unpacked.root, { recursive: true, force: true });
  }
}

/**
 * `service rollback`: back to the release that ran before the last upgrade (or, without a record
 * of it, the newest one older than `current`), with the same health wait.
 */
export async function rollback(opts: InstallerOptions): Promise<UpgradeResult> {
  const startedAt = new Date().toISOString();
  const layout = layoutOf(opts.prefix);
  const current = currentVersion(layout);
  if (current === undefined)
    return { exitCode: EXIT.notSwitched, outcome: 'not-switched', version: '', message: `nothing is installed under ${layout.prefix}` };
  const installed = installedVersions(layout);
  const last = readLastUpgrade(layout);
  const target =
    last?.from && last.from !== current && installed.includes(last.from)
      ? last.from
      : installed.filter((v) => v !== current && installed.indexOf(v) < installed.indexOf(current)).at(-1);
  if (target === undefined)
    return {
      exitCode: EXIT.notSwitched,
      outcome: 'not-switched',
      version: current,
      current,
      message: `no release older than ${current} is installed under ${layout.prefix}`,
    };

  const { manager, log } = context(opts, path.join(layout.releases, target));
  const unlock = lockPrefix(layout);
  try {
    log(`==> Rolling back from ${current} to ${target}`);
    let unhealthy: string | undefined;
    try {
      unhealthy = await switchTo(target, layout, manager, healthUrl(path.resolve(opts.config)), opts, log);
    } catch (error) {
      if (!(error instanceof InstallStepError)) throw error;
      return { exitCode: EXIT.notSwitched, outcome: 'not-switched', version: target, previous: current, current, message: stoppedAt(error, current) };
    }
    const result: UpgradeResult =
      unhealthy === undefined
        ? {
            exitCode: EXIT.installed,
            outcome: 'installed',
            version: target,
            previous: current,
            current: target,
            message: `branch-agent ${target} is running and healthy again.`,
          }
        : {
            exitCode: EXIT.unhealthy,
            outcome: 'unhealthy',
            version: target,
            previous: current,
            current: target,
            message: `branch-agent ${target} did not become healthy (${unhealthy}). Check ${manager.logsHint}.`,
          };
    writeLastUpgrade(layout, {
      action: 'rollback',
      outcome: result.outcome,
      exitCode: result.exitCode,
      from: current,
      to: target,
      current: target,
      reason: unhealthy,
      startedAt,
      finishedAt: new Date().toISOString(),
    });
    return result;
  } finally {
    unlock();
  }
}

/** `service status`: the service, the releases and the last upgrade, as lines. */
export async function status(opts: InstallerOptions): Promise<string[]> {
  const layout = layoutOf(opts.prefix);
  const current = currentVersion(layout);
  const dir = current ? path.join(layout.releases, current) : layout.prefix;
  const { manager } = context(opts, dir);
  const last = readLastUpgrade(layout);
  return [
    await manager.status(),
    `current: ${current ?? 'none'}; installed: ${installedVersions(layout).join(', ') || 'none'}`,
    last ? `last ${last.action}: ${last.from ?? '-'} -> ${last.to}, ${last.outcome} (exit ${last.exitCode}) at ${last.finishedAt}` : 'no upgrade recorded',
  ];
}

/** `service uninstall`: stops the agent and removes the service; releases and config stay. */
export async function uninstall(opts: InstallerOptions): Promise<string> {
  const layout = layoutOf(opts.prefix);
  const current = currentVersion(layout);
  const { manager } = context(opts, current ? path.join(layout.releases, current) : layout.prefix);
  await manager.remove();
  return `The ${manager.kind} service is removed. ${layout.prefix} and ${opts.config} are kept: delete them to remove everything.`;
}
