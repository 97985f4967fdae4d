/**
 * release size: the agent's release tarball (scripts/make-release.sh, linux) without and with
 * the Node.js runtime it carries, built in this run. Target: the agent's own code and
 * dependencies at most 10 MB compressed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface BuiltRelease {
  /** The unpacked release with its runtime: what the agent memory benchmark runs. */
  dir: string;
  lines: string[];
  remove(): void;
}

const MB = 1024 * 1024;

export function buildRelease(): BuiltRelease {
  const out = mkdtempSync(path.join(tmpdir(), 'bench-release-'));
  const make = (dir: string, ...flags: string[]) => {
    const built = spawnSync('bash', ['scripts/make-release.sh', '--out', path.join(out, dir), '--no-typecheck', ...flags], { encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`make-release.sh failed: ${built.stderr}`);
  };
  make('lean', '--no-runtime');
  make('full');
  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  const name = `branch-agent-${version}-linux`;
  const lean = statSync(path.join(out, 'lean', `${name}.tar.gz`)).size;
  const full = statSync(path.join(out, 'full', `${name}.tar.gz`)).size;
  return {
    dir: path.join(out, 'full', name),
    lines: [
      `release size: ${(lean / MB).toFixed(1)} MB agent code and dependencies (target 10), ${(full / MB).toFixed(1)} MB with the Node.js runtime (${((100 * (full - lean)) / full).toFixed(0)}% of it the runtime)`,
    ],
    remove: () => rmSync(out, { recursive: true, force: true }),
  };
}
