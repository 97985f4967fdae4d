/**
 * Test databases. The gateway's store is always PostgreSQL; a POS database is PostgreSQL in the
 * `sr11` and `sr10` projects and SQL Server in the `mssql` project, and the tests that use one
 * do not know which.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ControlledTransaction } from 'kysely';
import { inject } from 'vitest';
import { clusterAt, startEmbeddedPostgres, type EmbeddedCluster } from '../../src/embedded-postgres/cluster.js';
import { createPosDatabase, installPosDatabase } from '../../src/demo/pos-database.js';
import { createPosDb, type PosConnection, type PosDbConfig } from '../../src/pos/db.js';
import type { BranchSeed } from '../../src/demo/seed.js';
import type { PosDatabase, PosDb } from '../../src/pos/schema.js';
import type { MssqlConfig } from './sqlserver-source.js';
import { createSqlServerDatabase, setSqlServerDatabaseOnline } from './sqlserver.js';
import { GATEWAY_TEMPLATE, POS_TEMPLATES, schemaFileOf, type PosSchemaVersion, type PosTemplate } from './templates.js';
import { posDatabase } from '../../src/config/schema.js';

export const cluster = () => clusterAt(inject('pgPort'));

const sqlServer = inject('sqlServer');
const sqlServerFailure = inject('sqlServerFailure');

const uniqueName = (prefix: string) => `${prefix}${randomBytes(6).toString('hex')}`;

async function clonePg(template: string): Promise<string> {
  const name = uniqueName('t_');
  const c = cluster();
  for (let attempt = 0; ; attempt++) {
    try {
      await c.admin(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      return c.url(name);
    } catch (error) {
      // Two files cloning the same template at once: PostgreSQL says it is "being accessed".
      if (attempt >= 20 || !/being accessed/.test(String(error))) throw error;
      await sleep(50 + Math.random() * 100);
    }
  }
}

/** A fresh, migrated gateway store; returns its URL. */
export const newGatewayDatabase = () => clonePg(GATEWAY_TEMPLATE);

async function newSqlServerPosDatabase(server: NonNullable<typeof sqlServer>, seed: BranchSeed | undefined, schemaFile: string): Promise<MssqlConfig> {
  const config = await createSqlServerDatabase(server.config, uniqueName(server.prefix));
  await installPosDatabase(config, seed, schemaFile);
  return config;
}

/**
 * A fresh POS database built like `template`, on this project's server. `schema` asks for
 * another Soft Restaurant version than the project's.
 */
export async function newPosDatabase(template: PosTemplate = 'branch', schema?: PosSchemaVersion): Promise<PosDbConfig> {
  if (sqlServerFailure) throw new Error(sqlServerFailure);
  const recipe = POS_TEMPLATES[template];
  const version = schema ?? inject('posSchema');
  if (sqlServer) return newSqlServerPosDatabase(sqlServer, recipe.seed, schemaFileOf(version));
  if (version !== inject('posSchema'))
    return posDatabase({ dialect: 'postgres', url: await createPosDatabase(cluster(), uniqueName('t_'), recipe.seed, schemaFileOf(version)) });
  return posDatabase({ dialect: 'postgres', url: await clonePg(recipe.database) });
}

/** The URL of a PostgreSQL POS database, for the suites that only run on PostgreSQL (doctor). */
export function pgUrlOf(config: PosDbConfig): string {
  if (config.dialect !== 'postgres') throw new Error('this suite runs on PostgreSQL only');
  return config.url;
}

/** A direct connection to a POS database, for asserting what the agent wrote. */
export function openPosDb(config: PosDbConfig): Promise<PosConnection> {
  return createPosDb({ ...config, poolSize: 4 });
}

/**
 * Runs `during` in a transaction on `db`, as a terminal holding rows, and rolls it back
 * afterwards unless `during` ended it. Rolled back when `during` fails too, before anything
 * closes the connection: closing a pool waits for a connection still in a transaction, so an
 * assertion that failed while the terminal held its locks would be reported as the test's
 * timeout instead of itself.
 */
export async function inTerminalTransaction<T>(db: PosDb, during: (trx: ControlledTransaction<PosDatabase>) => Promise<T>): Promise<T> {
  const trx = await db.startTransaction().execute();
  try {
    return await during(trx);
  } finally {
    // A deadlock victim's transaction is already gone: its rollback fails, and Kysely still frees the connection.
    if (!trx.isCommitted && !trx.isRolledBack)
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
  }
}

/** `inTerminalTransaction` on a connection of its own, as another terminal of the branch. */
export async function withTerminal<T>(config: PosDbConfig, during: (trx: ControlledTransaction<PosDatabase>) => Promise<T>): Promise<T> {
  const terminal = await openPosDb(config);
  try {
    return await inTerminalTransaction(terminal.db, during);
  } finally {
    await terminal.close();
  }
}

/**
 * A POS database that can go away and come back, as when a branch's server restarts: on
 * PostgreSQL its own cluster stops and starts on the same port; on SQL Server the database goes
 * offline (closing every connection) and online again.
 */
export interface InterruptiblePosDatabase {
  config: PosDbConfig;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function newInterruptiblePosDatabase(): Promise<InterruptiblePosDatabase> {
  if (sqlServerFailure) throw new Error(sqlServerFailure);
  const seed = POS_TEMPLATES.branch.seed;
  const schemaFile = schemaFileOf(inject('posSchema'));
  if (sqlServer) {
    const config = await newSqlServerPosDatabase(sqlServer, seed, schemaFile);
    return {
      config,
      down: () => setSqlServerDatabaseOnline(sqlServer.config, config.database, false),
      up: () => setSqlServerDatabaseOnline(sqlServer.config, config.database, true),
      // Online again even after a test that failed mid-outage, so the run's drop removes its files.
      close: () => setSqlServerDatabaseOnline(sqlServer.config, config.database, true).catch(() => undefined),
    };
  }
  // In the shared temp dir, world-writable: the postgres user must reach it when we run as root.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'branch-agent-restart-'));
  chmodSync(dataDir, 0o777);
  const start = (port?: number) => startEmbeddedPostgres({ dataDir: `${dataDir}/pg`, ...(port ? { port } : {}) });
  let own: EmbeddedCluster | undefined = await start();
  const port = own.port;
  const url = await createPosDatabase(own, 'pos', seed, schemaFile);
  const stop = async () => {
    await own?.stop();
    own = undefined;
  };
  return {
    config: posDatabase({ dialect: 'postgres', url }),
    down: stop,
    up: async () => {
      own = await start(port);
    },
    close: async () => {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
