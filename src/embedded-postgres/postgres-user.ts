/**
 * PostgreSQL refuses to run as root, so as root its programs run as the `postgres` system user
 * (created if missing). That user must reach, through every directory above them, both the
 * programs and the data directory: a checkout or a data dir inside root's home (mode 700) it
 * cannot. What it can reach is asked of the system as that user, so ACLs count too.
 */
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

export interface RunAs {
  uid: number;
  gid: number;
}

const POSTGRES_USER = 'postgres';

const run = promisify(execFile);

/** The postgres system user when we run as root (created if missing), else undefined: we run PostgreSQL ourselves. */
export async function postgresUser(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = async (): Promise<RunAs> => ({
    uid: Number((await run('id', ['-u', POSTGRES_USER])).stdout),
    gid: Number((await run('id', ['-g', POSTGRES_USER])).stdout),
  });
  try {
    return await ids();
  } catch {
    // Missing: created below.
  }
  try {
    await run('groupadd', ['-f', '--system', POSTGRES_USER]);
    await run('useradd', ['--system', '-g', POSTGRES_USER, POSTGRES_USER]);
    return await ids();
  } catch (error) {
    const why = String((error as { stderr?: string }).stderr || (error as Error).message)
      .trim()
      .split('\n')[0];
    throw new Error(
      `as root it must run as the system user ${POSTGRES_USER}, which could not be created (${why}); create it (useradd --system ${POSTGRES_USER}) or run as another user`,
    );
  }
}

/** Whether `test <args>` holds for `runAs`. */
function holds(runAs: RunAs, args: string[]): boolean {
  const result = spawnSync('test', args, { uid: runAs.uid, gid: runAs.gid, stdio: 'ignore' });
  // Without a `test` to ask, PostgreSQL itself will say what it cannot reach.
  return result.error !== undefined || result.status === 0;
}

/** Throws, ending with `fix`, unless `runAs` can create files in the directory `dir`. */
export function assertCanUse(runAs: RunAs, dir: string, fix: string): void {
  if (holds(runAs, ['-w', dir, '-a', '-x', dir])) return;
  // Name the first directory on the way that it cannot enter (/root, typically).
  const parts = dir.split(path.sep);
  const ancestors = parts.slice(2).map((_, i) => parts.slice(0, i + 2).join(path.sep));
  const blocked = ancestors.find((at) => !holds(runAs, ['-x', at]));
  const cannot = blocked && blocked !== dir ? `cannot enter ${blocked}` : `cannot write in ${dir}`;
  throw new Error(`as root it runs as the system user ${POSTGRES_USER}, which ${cannot}: ${fix}`);
}
