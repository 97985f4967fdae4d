/**
 * Remote upgrades on the agent's side (issue 16). Told by the gateway to upgrade, the agent
 * checks the release's signature with the public key of its own config, waits for the branch's
 * maintenance window, downloads the tarball with its own token and checks its sha256, waits
 * until no job runs (a shift close is a job), and hands over to the installer, which stops
 * this process, switches, waits for health and rolls back by itself. Every step is reported;
 * the agent that comes up afterwards reports the outcome when the gateway asks again: done if
 * it runs the new version, rolled back if the attempt it recorded before handing over did not
 * leave it running.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { UpgradeMessage, UpgradeProgressMessage } from '../protocol/messages.js';
import { verifyRelease, type ReleaseManifest } from '../protocol/releases.js';
import type { MaintenanceWindow } from '../protocol/rollouts.js';
import { copyHashed } from './hashed-copy.js';
import { httpGet } from './http-get.js';

const DOWNLOAD_TIMEOUT_MS = 15 * 60_000;
/** How long the agent an upgrade started waits for the installer to record that it finished. */
const INSTALLER_FINISH_MS = 5 * 60_000;

/**
 * Hands a downloaded, verified tarball to the installer, which replaces the running release;
 * with its signed manifest, for an installer that checks it again. Resolves once handed over;
 * `failed` is called if the installer gives up before switching.
 */
export type Installer = (tarball: string, release: ReleaseManifest, failed: (reason: string) => void) => Promise<void>;

export interface UpgradeOptions {
  licenseKey: string;
  currentVersion: string;
  /** The gateway the order came from (of a cluster, the one connected now): it serves the download. */
  gatewayUrl: () => string;
  token: string;
  /** The trusted public key (PEM); undefined: remote upgrades are refused. */
  publicKey: string | undefined;
  downloadDir: string;
  /** Undefined when the agent was not installed by the installer (a source checkout, the demo). */
  installer: Installer | undefined;
  /**
   * What the installer recorded once it finished with `version` (it keeps running a few seconds
   * after the agent it started is up); undefined until then, or for an agent it did not install.
   */
  installerRecord?: (version: string, since: Date) => { outcome: string; reason?: string } | undefined;
  isIdle: () => boolean;
  report: (message: UpgradeProgressMessage) => void;
  log: Logger;
  /** The branch server's wall clock; the window is in its local time. */
  wallClock?: () => number;
  /** How often the window and idleness are checked while waiting (default 10 s). */
  pollMs?: number;
}

interface Attempt {
  rolloutId: string;
  version: string;
  at: string;
}

/** Whether local time `date` is inside the window; a window whose end is before its start spans midnight. */
export function inWindow(date: Date, window: MaintenanceWindow | null): boolean {
  if (!window) return true;
  const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  const now = date.getHours() * 60 + date.getMinutes();
  const from = minutes(window.desde);
  const to = minutes(window.hasta);
  return from < to ? now >= from && now < to : now >= from || now < to;
}

export class UpgradeRunner {
  #busyWith: string | undefined;
  #stopped = false;
  readonly #attemptFile: string;

  constructor(private readonly opts: UpgradeOptions) {
    this.#attemptFile = join(opts.downloadDir, `upgrade-attempt-${opts.licenseKey}.json`);
  }

  /** Handles an order; never throws: what goes wrong is reported as `failed` with the reason. */
  handle(order: UpgradeMessage): void {
    if (this.#busyWith === order.rolloutId || this.#stopped) return;
    this.#busyWith = order.rolloutId;
    this.#run(order)
      .catch((error: unknown) => this.#send(order, 'failed', error instanceof Error ? error.message : String(error)))
      .finally(() => {
        this.#busyWith = undefined;
      });
  }

  stop(): void {
    this.#stopped = true;
  }

  async #run(order: UpgradeMessage): Promise<void> {
    const { release } = order;
    const attempt = await this.#readAttempt();
    const handedOver = attempt?.rolloutId === order.rolloutId && attempt.version === release.version;
    if (release.version === this.opts.currentVersion || handedOver) {
      // Reported once the installer is done: the next upgrade must not find it still at work.
      const record = handedOver ? await this.#installerRecord(release.version, new Date(attempt.at)) : undefined;
      await rm(this.#attemptFile, { force: true });
      if (release.version === this.opts.currentVersion) return this.#send(order, 'done', null);
      const why = record?.reason ?? `${release.version} did not become healthy`;
      return this.#send(order, 'rolled_back', `${why}; the installer went back to ${this.opts.currentVersion}`);
    }
    if (!this.opts.publicKey) throw new Error('the agent has no upgrades.publicKeyFile in its config, so it cannot check a release');
    if (!this.opts.installer) throw new Error('this agent was not installed by the installer (branch-agent service install); upgrade it by hand');
    if (!verifyRelease(release, this.opts.publicKey)) throw new Error(`release ${release.version} is not signed by the key in upgrades.publicKeyFile`);

    await this.#until(() => inWindow(this.#now(), order.window));
    this.#send(order, 'downloading', null);
    const tarball = await this.#download(order);
    await this.#until(() => inWindow(this.#now(), order.window) && this.opts.isIdle());
    this.#send(order, 'installing', null);
    const record: Attempt = { rolloutId: order.rolloutId, version: release.version, at: this.#now().toISOString() };
    await writeFile(this.#attemptFile, JSON.stringify(record));
    this.opts.log.info({ rolloutId: order.rolloutId, version: release.version }, 'handing over to the installer');
    try {
      await this.opts.installer(tarball, release, (reason) => {
        void rm(this.#attemptFile, { force: true });
        this.#send(order, 'failed', reason);
      });
    } catch (error) {
      await rm(this.#attemptFile, { force: true });
      throw error;
    }
  }

  /** Downloads to a temporary name, checks the sha256 the signature covers, then names it. */
  async #download(order: UpgradeMessage): Promise<string> {
    const { release } = order;
    await mkdir(this.opts.downloadDir, { recursive: true });
    const final = join(this.opts.downloadDir, `branch-agent-${release.version}-${release.platform}.tar.gz`);
    // Its own partial file: a second download of the same release (another agent on a shared
    // directory, a retry) never writes into this one; the verified result is the same bytes.
    const partial = `${final}.${randomUUID()}.part`;
    const response = await httpGet(new URL(order.downloadPath, this.opts.gatewayUrl()), {
      headers: { authorization: `Bearer ${this.opts.token}` },
      // A download that stalls must not hold the upgrade (and its rollout) for good.
      timeoutMs: DOWNLOAD_TIMEOUT_MS,
    });
    if (response.statusCode !== 200) {
      response.resume();
      throw new Error(`the gateway answered ${response.statusCode} to the download of ${release.version}`);
    }
    const actual = await copyHashed(response, partial, 0o644);
    if (actual !== release.sha256) {
      await rm(partial, { force: true });
      throw new Error(`the downloaded tarball's sha256 ${actual} is not the signed ${release.sha256}`);
    }
    await rename(partial, final);
    return final;
  }

  async #until(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (this.#stopped) throw new Error('the agent stopped before the upgrade could run');
      await sleep(this.opts.pollMs ?? 10_000, undefined, { ref: false });
    }
  }

  async #installerRecord(version: string, since: Date): Promise<{ outcome: string; reason?: string } | undefined> {
    const read = this.opts.installerRecord;
    if (!read) return undefined;
    const until = Date.now() + INSTALLER_FINISH_MS;
    let record = read(version, since);
    while (!record && Date.now() < until && !this.#stopped) {
      await sleep(Math.min(this.opts.pollMs ?? 10_000, 1_000), undefined, { ref: false });
      record = read(version, since);
    }
    return record;
  }

  async #readAttempt(): Promise<Attempt | undefined> {
    try {
      return JSON.parse(await readFile(this.#attemptFile, 'utf8')) as Attempt;
    } catch {
      return undefined;
    }
  }

  #now(): Date {
    return new Date((this.opts.wallClock ?? Date.now)());
  }

  #send(order: UpgradeMessage, state: UpgradeProgressMessage['state'], reason: string | null): void {
    this.opts.log[state === 'failed' || state === 'rolled_back' ? 'warn' : 'info'](
      { rolloutId: order.rolloutId, version: order.release.version, state, reason },
      'upgrade',
    );
    this.opts.report({ type: 'upgrade', rolloutId: order.rolloutId, state, reason: reason?.slice(0, 500) ?? null });
  }
}
