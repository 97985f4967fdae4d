/**
 * Agent releases for the installer's tests: this checkout built once per test file by
 * scripts/make-release.sh (a linux release unless asked for win32, unpacked), and copies of it
 * stamped with the versions a test installs, upgrades to and rolls back from.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Builds the release into <work>/build and answers its folder. Without the runtime (the tests'
 * own Node.js runs it) and unpacked unless `withRuntime`, which also packs the tarball beside it
 * unless `tarball` is false.
 */
export function buildAgentRelease(
  work: string,
  opts: { withRuntime?: boolean; tarball?: boolean; platform?: 'linux' | 'win32' } = {},
): { dir: string; tarball: string; version: string } {
  const platform = opts.platform ?? 'linux';
  const flags = [...(opts.withRuntime ? [] : ['--no-runtime']), ...(opts.withRuntime && opts.tarball !== false ? [] : ['--no-tarball'])];
  const built = spawnSync('bash', ['scripts/make-release.sh', '--platform', platform, '--out', path.join(work, 'build'), '--no-typecheck', ...flags], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 240_000,
  });
  expect(built.status, built.stderr + built.stdout).toBe(0);
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const name = `branch-agent-${version}-${platform}`;
  return { dir: path.join(work, 'build', name), tarball: path.join(work, 'build', `${name}.tar.gz`), version };
}

/** A copy of the release folder `from` at `dir` that says it is `version`. */
export function stampRelease(from: string, dir: string, version: string): string {
  cpSync(from, dir, { recursive: true, verbatimSymlinks: true });
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as object;
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...pkg, version }, null, 2));
  return dir;
}
