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
import { existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

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

/**
 * Points `current` at releases/<version>. On Linux a new symlink renamed over the old one, so
 * `current` never disappears. Windows cannot rename over a junction: it is replaced, with the
 * service stopped (the upgrade stops it before switching).
 */
export function switchCurrent(layout: Layout, version: string, platform: NodeJS.Platform = process.platform): void {
  const target = path.join(layout.releases, version);
  if (!existsSync(target)) throw new Error(`${target} does not exist`);
  if (platform === 'win32') {
    rmSync(layout.current, { force: true, recursive: false });
    symlinkSync(target, layout.current, 'junction');
    return;
  }
  const next = `${layout.current}.new`;
  rmSync(next, { force: true });
  symlinkSync(path.join('releases', version), next);
  renameSync(next, layout.current);
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
