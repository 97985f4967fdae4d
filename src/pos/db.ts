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
import type { PosDbConfig } from './db-config.js';
import type { PosDialectName } from './sql-dialect.js';

export type { PosDbConfig } from './db-config.js';

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
