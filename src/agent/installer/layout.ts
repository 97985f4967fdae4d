/**
 * The installation under a prefix, the same on every platform:
 *
 *   <prefix>/releases/<version>/   each installed release, side by side, never changed once there
 *   <prefix>/current               → the running release (a symlink; a junction on Windows)
 *   <prefix>/state/                what the installer remembers (last-upgrade.json)
 *   <prefix>/logs/, <prefix>/run/  the background process's output and pid file
 *
 * The service definition always runs `<prefix>/current/...`, so switching releases is switching
 * `current` and restarting; rolling back is switching it back.
 */
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { InstallStepError } from './service-manager.js';

export interface Layout {
  prefix: string;
  releases: string;
  current: string;
  state: string;
  logs: string;
  run: string;
}

export function layoutOf(prefix: string): Layout {
  const root = path.resolve(prefix);
  return {
    prefix: root,
    releases: path.join(root, 'releases'),
    current: path.join(root, 'current'),
    state: path.join(root, 'state'),
    logs: path.join(root, 'logs'),
    run: path.join(root, 'run'),
  };
}

/** The version `current` points at, if any. */
export function currentVersion(layout: Layout): string | undefined {
  try {
    return path.basename(readlinkSync(layout.current));
  } catch {
    return undefined;
  }
}

/** Numeric parts compared as numbers (9.0.10 after 9.0.9); anything else as text. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/);
  const pb = b.split(/[.+-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    const diff = /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x.localeCompare(y);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** Installed releases, oldest first; staging folders (dot names) are not releases. */
export function installedVersions(layout: Layout): string[] {
  if (!existsSync(layout.releases)) return [];
  return readdirSync(layout.releases, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort(compareVersions);
}

/** `current` staged to point at a release: put in place, or thrown away. */
export interface StagedSwitch {
  commit(): void;
  discard(): void;
}

const isLink = (file: string) => {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
};

/**
 * Makes `current.new` point at releases/<version> (a junction on Windows, a relative symlink
 * elsewhere) and reads it back, before anything is stopped: where a link cannot be made (Wine
 * has no junctions; a file system without them), the install stops here and `current` is as it
 * was. `commit` puts it in place of `current`: on Linux renamed over it, so `current` never
 * disappears; Windows cannot rename over a junction, so the old one steps aside first and comes
 * back if the new one cannot take its place (the service is stopped by then).
 */
export function stageCurrent(layout: Layout, version: string, platform: NodeJS.Platform = process.platform): StagedSwitch {
  const target = path.join(layout.releases, version);
  if (!existsSync(target)) throw new Error(`${target} does not exist`);
  const step = `Pointing ${layout.current} at releases/${version}`;
  const next = `${layout.current}.new`;
  const pointsAtTarget = (link: string) => {
    try {
      return realpathSync(link) === realpathSync(target);
    } catch {
      return false;
    }
  };
  rmSync(next, { force: true });
  try {
    if (platform === 'win32') symlinkSync(target, next, 'junction');
    else symlinkSync(path.join('releases', version), next);
  } catch (error) {
    throw new InstallStepError(step, `${next} could not be made (${platform === 'win32' ? 'a junction' : 'a symlink'}): ${(error as Error).message}`);
  }
  if (!pointsAtTarget(next)) {
    rmSync(next, { force: true });
    throw new InstallStepError(step, `${next} was made but does not lead to ${target}`);
  }
  return {
    discard: () => rmSync(next, { force: true }),
    commit() {
      if (platform !== 'win32') renameSync(next, layout.current);
      else {
        const old = `${layout.current}.old`;
        rmSync(old, { force: true });
        const hadCurrent = isLink(layout.current);
        if (hadCurrent) renameSync(layout.current, old);
        try {
          renameSync(next, layout.current);
        } catch (error) {
          if (hadCurrent) renameSync(old, layout.current);
          throw new InstallStepError(step, `${next} could not take the place of ${layout.current}: ${(error as Error).message}`);
        }
        rmSync(old, { force: true });
      }
      if (!pointsAtTarget(layout.current)) throw new InstallStepError(step, `${layout.current} does not lead to ${target} after the switch`);
    },
  };
}

/** Removes the oldest releases beyond `keep`, never one of `protect`. Answers the removed. */
export function pruneReleases(layout: Layout, keep: number, protect: Array<string | undefined>): string[] {
  const versions = installedVersions(layout);
  const removed: string[] = [];
  let excess = versions.length - keep;
  for (const version of versions) {
    if (excess <= 0) break;
    if (protect.includes(version)) continue;
    rmSync(path.join(layout.releases, version), { recursive: true, force: true });
    removed.push(version);
    excess--;
  }
  for (const entry of existsSync(layout.releases) ? readdirSync(layout.releases) : []) {
    if (entry.startsWith('.')) rmSync(path.join(layout.releases, entry), { recursive: true, force: true });
  }
  return removed;
}

export function ensureDirs(layout: Layout): void {
  for (const dir of [layout.releases, layout.state, layout.logs, layout.run]) mkdirSync(dir, { recursive: true });
}

/** One installer per prefix at a time: <prefix>/.install.lock holds its pid. */
export function lockPrefix(layout: Layout): () => void {
  const file = path.join(layout.prefix, '.install.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(file, 'utf8').trim());
      let alive = false;
      try {
        process.kill(holder, 0);
        alive = true;
      } catch {
        // The installer that held it is gone: the lock is stale.
      }
      if (alive) throw new Error(`another installer (pid ${holder}) is working on ${layout.prefix}`);
      rmSync(file, { force: true });
    }
  }
  throw new Error(`cannot lock ${layout.prefix}`);
}
