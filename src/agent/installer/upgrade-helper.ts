/**
 * `branch-agent service upgrade-request`: the privileged side of a remote upgrade under systemd
 * or WinSW (upgrade-request.ts), run as root by the branch-agent-upgrade unit or as SYSTEM by
 * the scheduled task. The request comes from the agent's account, which must not gain more
 * through it than the publisher's signature allows: so the helper checks everything again with
 * what only root or Administrators can change, the config and the public key it names. It takes
 * only a regular file directly in the download folder, copies it where the agent cannot write
 * while hashing it (so the bytes installed are the bytes checked), verifies the Ed25519
 * signature and the sha256, and installs that copy with `upgrade()`, which also checks that the
 * tarball holds the signed version. A refusal is logged (also to <prefix>/logs/upgrade.log) and
 * recorded in last-upgrade.json, where the agent reads it and reports `failed`.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, constants, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { copyHashed } from '../hashed-copy.js';
import { upgradeRequest, requestFileOf, upgradeSettingsOf, type UpgradeSettings } from './upgrade-request.js';
import { verifyRelease, type ReleaseManifest } from '../../protocol/releases.js';
import { currentVersion, ensureDirs, layoutOf, type Layout } from './layout.js';
import { writeLastUpgrade } from './state.js';
import { EXIT, upgrade, type InstallerOptions, type UpgradeResult } from './upgrade.js';

/** Why a request was not carried out; its message is what the rollout shows. */
export class UpgradeRequestRefused extends Error {}

/** A request is a few hundred bytes; anything large is not one. */
const MAX_REQUEST_BYTES = 16 * 1024;

/**
 * Takes the pending request, if any: undefined when there is none (the unit or task ran without
 * one), otherwise the installer's result, a refusal or a failure to start included (exit code 1,
 * nothing switched).
 */
export async function takeUpgradeRequest(opts: InstallerOptions, platform: NodeJS.Platform = process.platform): Promise<UpgradeResult | undefined> {
  const settings = upgradeSettingsOf(path.resolve(opts.config));
  const file = requestFileOf(settings.downloadDir);
  let text: string | undefined;
  let unreadable = '';
  try {
    const stat = lstatSync(file);
    if (stat.isFile() && stat.size <= MAX_REQUEST_BYTES) text = readFileSync(file, 'utf8');
    else unreadable = `${file} is not a request file`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    unreadable = `cannot read ${file}: ${(error as Error).message}`;
  } finally {
    // Taken once: the path unit starts the helper again while the file exists.
    rmSync(file, { force: true });
  }

  const startedAt = new Date().toISOString();
  const layout = layoutOf(opts.prefix);
  ensureDirs(layout);
  // A scheduled task's output goes nowhere: <prefix>/logs/upgrade.log keeps it on every platform,
  // beside what a background process's hand-over writes there.
  const print = opts.log ?? ((line: string) => console.log(line));
  const log = (line: string) => {
    print(line);
    appendFileSync(path.join(layout.logs, 'upgrade.log'), `${new Date().toISOString()} ${line}\n`);
  };
  let version = 'unknown';
  let requestedAt: string | undefined;
  let copy: string | undefined;
  try {
    if (text === undefined) throw new UpgradeRequestRefused(unreadable);
    const request = parseRequest(text);
    version = request.release.version;
    requestedAt = request.requestedAt;
    copy = await verifiedCopy(request.release, request.tarball, settings, layout, platform);
    log(`==> Upgrade request for ${version} checked: signed by the key in upgrades.publicKeyFile, sha256 ${request.release.sha256}`);
    return await upgrade({ ...opts, log, tarball: copy, expectedVersion: version, requestedAt, healthTimeoutMs: settings.healthTimeoutSeconds * 1000 });
  } catch (error) {
    // Recorded either way: the agent that asked is still running and waits for an answer.
    const reason =
      error instanceof UpgradeRequestRefused
        ? `upgrade request refused: ${error.message}`
        : `the installer could not carry out the upgrade request: ${error instanceof Error ? error.message : String(error)}`;
    log(reason);
    const running = currentVersion(layout);
    writeLastUpgrade(layout, {
      action: 'upgrade',
      outcome: 'not-switched',
      exitCode: EXIT.notSwitched,
      from: running,
      to: version,
      current: running,
      reason,
      requestedAt,
      startedAt,
      finishedAt: new Date().toISOString(),
    });
    return { exitCode: EXIT.notSwitched, outcome: 'not-switched', version, previous: running, current: running, message: reason };
  } finally {
    if (copy) rmSync(copy, { force: true });
  }
}

function parseRequest(text: string) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UpgradeRequestRefused('the request is not JSON');
  }
  const parsed = upgradeRequest.safeParse(json);
  if (!parsed.success)
    throw new UpgradeRequestRefused(`the request is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

/** The tarball, checked and copied to <prefix>/state/ (the installer's own folder); answers the copy. */
async function verifiedCopy(release: ReleaseManifest, tarball: string, settings: UpgradeSettings, layout: Layout, platform: NodeJS.Platform): Promise<string> {
  if (!settings.publicKeyFile) throw new UpgradeRequestRefused('the config has no upgrades.publicKeyFile, so no release can be checked');
  let publicKey: string;
  try {
    publicKey = readFileSync(settings.publicKeyFile, 'utf8');
  } catch (error) {
    throw new UpgradeRequestRefused(`cannot read upgrades.publicKeyFile ${settings.publicKeyFile}: ${(error as Error).message}`);
  }
  if (!verifyRelease(release, publicKey)) throw new UpgradeRequestRefused(`release ${release.version} is not signed by the key in upgrades.publicKeyFile`);
  if (release.platform !== platform) throw new UpgradeRequestRefused(`release ${release.version} is for ${release.platform}, not ${platform}`);

  if (!path.isAbsolute(tarball) || !inDownloadDir(tarball, settings.downloadDir))
    throw new UpgradeRequestRefused(`${tarball} is not a file in the download folder ${settings.downloadDir}`);

  const copy = path.join(layout.state, `upgrade-${randomUUID()}.tar.gz`);
  mkdirSync(layout.state, { recursive: true });
  let actual: string;
  try {
    // O_NOFOLLOW: a symlink put in place after the check above is not followed.
    actual = await copyHashed((await open(tarball, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))).createReadStream(), copy);
  } catch (error) {
    rmSync(copy, { force: true });
    throw new UpgradeRequestRefused(`cannot read ${tarball}: ${(error as Error).message}`);
  }
  if (actual !== release.sha256) {
    rmSync(copy, { force: true });
    throw new UpgradeRequestRefused(`the sha256 of ${tarball} is ${actual}, not the signed ${release.sha256}`);
  }
  return copy;
}

/** A regular file (not a link) whose folder is the download folder itself, links resolved. */
function inDownloadDir(tarball: string, downloadDir: string): boolean {
  try {
    const stat = lstatSync(tarball);
    return stat.isFile() && realpathSync(path.dirname(tarball)) === realpathSync(downloadDir);
  } catch {
    return false;
  }
}
