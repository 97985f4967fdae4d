/**
 * The connection to a branch's POS database: SQL Server through Kysely's MssqlDialect (tedious
 * and tarn) at a branch, PostgreSQL in the demo and the tests. The dialect differences live in
 * sql-dialect.ts, the tedious adaptations in mssql-driver.ts.
 */
import { Kysely, MssqlDialect, MssqlIntrospector, PostgresDialect, sql, type Dialect } from 'kysely';
import pg from 'pg';
import * as tedious from 'tedious';
import * as tarn from 'tarn';
import { createPgPool } from '../postgres-pool.js';
import { PosMssqlAdapter, PosRequest, PosTediousConnection } from './mssql-driver.js';
import type { PosDatabase, PosDb } from './schema.js';
import { MssqlPosQueryCompiler, type PosDialectName } from './sql-dialect.js';

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

// pg returns int8 as text to protect values above 2^53; POS counters never get there.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function createPosDb(config: PosDbConfig): PosConnection {
  const dialect = config.dialect === 'postgres' ? postgresDialect(config) : mssqlDialect(config);
  const db = new Kysely<PosDatabase>({ dialect });
  return { db, dialect: config.dialect, close: () => db.destroy() };
}

function postgresDialect(config: Extract<PosDbConfig, { dialect: 'postgres' }>): Dialect {
  return new PostgresDialect({
    pool: createPgPool({ ...withLockTimeout(config.url, config.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS), max: config.poolSize ?? 10 }),
  });
}

/**
 * The connection settings with `-c lock_timeout` in `options`. pg lets a URL's own `options`
 * replace a separate setting, so they are joined in the URL; a URL the WHATWG parser rejects
 * (a socket path: `postgresql://user@/db?host=/run/postgresql`) cannot carry them anyway.
 */
export function withLockTimeout(url: string, ms: number): { connectionString: string; options?: string } {
  const setting = `-c lock_timeout=${Math.trunc(ms)}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, options: setting };
  }
  parsed.searchParams.set('options', [parsed.searchParams.get('options'), setting].filter(Boolean).join(' '));
  return { connectionString: parsed.toString() };
}

function mssqlDialect(config: Extract<PosDbConfig, { dialect: 'mssql' }>): Dialect {
  const base = new MssqlDialect({
    // A connection that cannot be made fails the request waiting for it at once (pos_unavailable),
    // rather than being retried until tarn's acquire timeout outlasts the gateway's job timeout.
    tarn: { ...tarn, options: { min: 0, max: config.poolSize ?? 10, propagateCreateError: true } },
    tedious: {
      ...tedious,
      Request: PosRequest,
      connectionFactory: () => new PosTediousConnection(tediousConfig(config), config.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS),
    },
  });
  return {
    createAdapter: () => new PosMssqlAdapter(),
    createDriver: () => base.createDriver(),
    createIntrospector: (db) => new MssqlIntrospector(db),
    createQueryCompiler: () => new MssqlPosQueryCompiler(),
  };
}

export function tediousConfig(config: Extract<PosDbConfig, { dialect: 'mssql' }>): tedious.ConnectionConfiguration {
  const auth = config.authentication;
  return {
    server: config.server,
    authentication:
      auth.type === 'ntlm'
        ? { type: 'ntlm', options: { domain: auth.domain, userName: auth.user, password: auth.password } }
        : { type: 'default', options: { userName: auth.user, password: auth.password } },
    options: {
      database: config.database,
      ...(config.instanceName ? { instanceName: config.instanceName } : { port: config.port ?? 1433 }),
      encrypt: config.encrypt ?? false,
      trustServerCertificate: config.trustServerCertificate ?? true,
      // The POS stores branch-local wall-clock times; UTC conversion would shift every date.
      useUTC: false,
      lowerCaseGuids: true,
      connectTimeout: config.connectTimeoutMs ?? 15_000,
      requestTimeout: config.requestTimeoutMs ?? 30_000,
      appName: 'branch-agent',
    },
  };
}

/** Resolves when the database answers a trivial query. */
export async function ping(db: PosDb): Promise<void> {
  await sql`select 1`.execute(db);
}
