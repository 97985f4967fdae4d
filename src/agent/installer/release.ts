/**
 * A release as make-release.sh makes it: its version, whether it is complete, the Node.js it
 * carries (runtime/), unpacking one from its tarball, and running its migrations.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readEnvFile } from './config-file.js';

const REQUIRED = ['package.json', 'bin/branch-agent.js', 'dist/cli.js', 'sql'];

export interface Release {
  dir: string;
  version: string;
}

export function readRelease(dir: string): Release {
  const missing = REQUIRED.filter((f) => !existsSync(path.join(dir, f)));
  if (missing.length > 0) throw new Error(`${dir} is not a complete release (${missing.join(', ')} missing): make one with scripts/make-release.sh`);
  const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof version !== 'string' || !/^[0-9A-Za-z][0-9A-Za-z.+_-]*$/.test(version))
    throw new Error(`unusable version ${JSON.stringify(version)} in ${dir}/package.json`);
  return { dir, version };
}

/** The release this code runs from: the nearest folder above this file with a package.json. */
export function runningReleaseDir(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error('cannot find the release this installer belongs to');
  }
}

/** runtime/node (runtime\node.exe) of the release at `dir`, relative to it; undefined without one. */
export function bundledNode(dir: string, platform: NodeJS.Platform = process.platform): string | undefined {
  const file = path.join('runtime', platform === 'win32' ? 'node.exe' : 'node');
  return existsSync(path.join(dir, file)) ? file : undefined;
}

/**
 * Unpacks a release tarball into a new folder under `into` (with tar, which Windows 10 and later
 * have too): answers that folder, to remove afterwards, and the release inside it.
 */
export async function unpackRelease(tarball: string, into: string): Promise<{ root: string; release: string }> {
  const root = mkdtempSync(path.join(into, '.unpack-'));
  await new Promise<void>((resolve, reject) => {
    const tar = spawn('tar', ['-xzf', path.resolve(tarball), '-C', root], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    tar.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    tar.on('error', reject);
    tar.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar could not unpack ${tarball}: ${stderr.trim()}`))));
  });
  const entries = readdirSync(root);
  const release = entries.length === 1 ? path.join(root, entries[0]!) : root;
  readRelease(release);
  return { root, release };
}

const MIGRATE_TIMEOUT_MS = 300_000;

/** `branch-agent migrate` of the release at `dir`, with its own runtime; resolves the failure text, if any. */
export function migrateRelease(dir: string, node: string, config: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(node, [path.join(dir, 'bin', 'branch-agent.js'), 'migrate', '-c', config], {
      env: { ...process.env, ...readEnvFile(config) },
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), MIGRATE_TIMEOUT_MS);
    child.on('error', (error) => resolve(error.message));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? undefined : output.trim() || `exit code ${code}`);
    });
  });
}
