/**
 * Remote upgrades of a systemd or WinSW service, the agent's side (issue 16). The installer
 * stops the service, and under a service manager the agent cannot run it: a systemd system
 * unit's account may not stop its own unit, and a process the agent starts dies with the
 * service's control group (systemd) or job object (WinSW). So the agent only drops a request,
 * <downloadDir>/upgrade-request.json (the signed manifest and the tarball it downloaded), and
 * a helper the installer set up outside the service takes it: a root oneshot unit that a path
 * unit starts when the file appears (systemd), a scheduled task running as SYSTEM that the agent
 * starts with `schtasks /Run` (WinSW). The helper trusts nothing in the request (upgrade-helper.ts);
 * when it refuses, it records why in <prefix>/state/last-upgrade.json, and the agent, still
 * running, reports that reason as `failed`.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { configSchemas } from '../../config/schema.js';
import { releaseManifest, type ReleaseManifest } from '../../protocol/releases.js';
import type { Installer } from '../upgrades.js';
import type { Layout } from './layout.js';
import { exec as realExec, type Exec } from './service-manager.js';
import { readLastUpgrade } from './state.js';

export const REQUEST_FILE = 'upgrade-request.json';
/** The scheduled task (Windows) and the units (systemd) that take requests. */
export const UPGRADE_HELPER_NAME = 'branch-agent-upgrade';

export const upgradeRequest = z.object({
  release: releaseManifest,
  /** Absolute path of the downloaded tarball, in the download folder. */
  tarball: z.string().min(1),
  requestedAt: z.string(),
});
export type UpgradeRequest = z.infer<typeof upgradeRequest>;

const PICKUP_MS = 60_000;
/** How long the agent watches for the helper's refusal once it took the request. */
const VERIFY_MS = 10 * 60_000;

export const requestFileOf = (downloadDir: string) => path.join(downloadDir, REQUEST_FILE);

export interface UpgradeSettings {
  downloadDir: string;
  publicKeyFile: string | undefined;
  healthTimeoutSeconds: number;
}

/**
 * The config's upgrade settings with paths resolved beside the config file, as the agent and
 * the helper both read them: they must agree on the download folder. Defaults when the config
 * cannot be read yet (the installer defines the service before the agent first runs).
 */
export function upgradeSettingsOf(configPath: string): UpgradeSettings {
  let raw: unknown;
  try {
    raw = (JSON.parse(readFileSync(configPath, 'utf8')) as { agent?: { upgrades?: unknown } }).agent?.upgrades;
  } catch {
    raw = undefined;
  }
  const upgrades = configSchemas().agentConfigFields.shape.upgrades;
  const parsed = upgrades.safeParse(raw ?? {});
  return resolveUpgradeSettings(parsed.success ? parsed.data : upgrades.parse(undefined), configPath);
}

/** The config's `upgrades` section with its paths resolved beside the config file. */
export function resolveUpgradeSettings(
  upgrades: { downloadDir?: string; publicKeyFile?: string; healthTimeoutSeconds: number },
  configPath: string,
): UpgradeSettings {
  const beside = (file: string) => path.resolve(path.dirname(configPath), file);
  return {
    downloadDir: beside(upgrades.downloadDir ?? 'downloads'),
    publicKeyFile: upgrades.publicKeyFile === undefined ? undefined : beside(upgrades.publicKeyFile),
    healthTimeoutSeconds: upgrades.healthTimeoutSeconds,
  };
}

export interface RequestingInstallerOptions {
  manager: 'systemd' | 'winsw';
  layout: Layout;
  downloadDir: string;
  exec?: Exec;
  /** How often the agent looks for the helper's answer (default 1 s). */
  pollMs?: number;
  /** How long a request may wait for the helper to take it (default 60 s). */
  pickupMs?: number;
}

/** The agent's hand-over under a service manager: write the request, start the helper, watch for a refusal. */
export function requestingInstaller(opts: RequestingInstallerOptions): Installer {
  const run = opts.exec ?? realExec;
  const file = requestFileOf(opts.downloadDir);
  return async (tarball, release, failed) => {
    const request: UpgradeRequest = { release: pick(release), tarball: path.resolve(tarball), requestedAt: new Date().toISOString() };
    // Written whole, then named: a path unit must never see half a request.
    const partial = `${file}.${process.pid}.part`;
    await writeFile(partial, JSON.stringify(request, null, 2));
    await rename(partial, file);
    if (opts.manager === 'winsw') {
      const started = await run('schtasks', ['/Run', '/TN', UPGRADE_HELPER_NAME]);
      if (started.code !== 0) {
        await rm(file, { force: true });
        throw new Error(
          `schtasks /Run /TN ${UPGRADE_HELPER_NAME} failed (exit ${started.code}): ${(started.stderr || started.stdout).trim()}; run branch-agent service install as Administrator to register the upgrade task`,
        );
      }
    }
    watchForRefusal(opts, file, request, failed);
  };
}

function pick(release: ReleaseManifest): ReleaseManifest {
  const { version, platform, sha256, signature } = release;
  return { version, platform, sha256, signature };
}

/**
 * A refusal leaves this agent running, so it reports it; an accepted request ends with this
 * agent stopped by the helper, and the agent that runs next reports the outcome.
 */
function watchForRefusal(opts: RequestingInstallerOptions, file: string, request: UpgradeRequest, failed: (reason: string) => void): void {
  const started = Date.now();
  const tick = () => {
    const record = readLastUpgrade(opts.layout);
    if (record?.requestedAt === request.requestedAt) {
      if (record.outcome === 'not-switched') failed(record.reason ?? `the upgrade helper did not switch to ${request.release.version}`);
      return;
    }
    const pickupMs = opts.pickupMs ?? PICKUP_MS;
    if (existsSync(file) && Date.now() - started > pickupMs) {
      rmSync(file, { force: true });
      const helper = opts.manager === 'systemd' ? `the ${UPGRADE_HELPER_NAME}.path unit` : `the scheduled task ${UPGRADE_HELPER_NAME}`;
      failed(
        `no upgrade helper took the request within ${Math.round(pickupMs / 1000)} s: run branch-agent service install as root or Administrator to set up ${helper}`,
      );
      return;
    }
    if (Date.now() - started < VERIFY_MS) {
      setTimeout(tick, opts.pollMs ?? 1_000).unref();
      return;
    }
    // An accepted request stops this agent well before: the helper died without an answer.
    failed(`the upgrade helper took the request for ${request.release.version} but recorded no outcome within ${VERIFY_MS / 60_000} min`);
  };
  setTimeout(tick, opts.pollMs ?? 1_000).unref();
}
