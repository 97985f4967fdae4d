/**
 * The connection to a branch's POS database: SQL Server through Kysely's MssqlDialect (tedious
 * and tarn) at a branch, PostgreSQL in the demo and the tests. The dialect differences live in
 * sql-dialect.ts, the tedious adaptations in mssql-driver.ts.
 *
 * Each dialect's driver loads only when a connection of that dialect is made (postgres-dialect.ts,
 * mssql-dialect.ts): an agent on SQL Server never loads pg, and the demo never loads tedious.
 */
import { Kysely, sql } from 'kysely';
import type { PosDatabase, PosDb } from './schema.js';
import type { PosDialectName } from './sql-dialect.js';

/** Settings both dialects share. */
interface PosDbCommon {
  poolSize?: number;
  /**
   * How long a statement waits for a row or table a terminal holds before it gives up
   * (`pos_busy`), rather than holding the job until its deadline. Default 10 s: twice the
   * interval of SQL Server's deadlock monitor, so a deadlock is still found and retried first.
   */
  lockTimeoutMs?: number;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

export type PosDbConfig =
  | (PosDbCommon & { dialect: 'postgres'; url: string })
  | (PosDbCommon & {
      dialect: 'mssql';
      server: string;
      /** Named instance (`SERVER\INSTANCE`), resolved through SQL Browser. */
      instanceName?: string;
      port?: number;
      database: string;
      authentication: { type: 'sql'; user: string; password: string } | { type: 'ntlm'; domain: string; user: string; password: string };
      encrypt?: boolean;
      trustServerCertificate?: boolean;
      connectTimeoutMs?: number;
      requestTimeoutMs?: number;
    });

export interface PosConnection {
  db: PosDb;
  dialect: PosDialectName;
  close: () => Promise<void>;
}

export async function createPosDb(config: PosDbConfig): Promise<PosConnection> {
  const dialect =
    config.dialect === 'postgres' ? (await import('./postgres-dialect.js')).postgresDialect(config) : (await import('./mssql-dialect.js')).mssqlDialect(config);
  const db = new Kysely<PosDatabase>({ dialect });
  return { db, dialect: config.dialect, close: () => db.destroy() };
}

/** Resolves when the database answers a trivial query. */
export async function ping(db: PosDb): Promise<void> {
  await sql`select 1`.execute(db);
}
