/** The PostgreSQL side of db.ts: pg, loaded only for a POS database on PostgreSQL (demo, tests). */
import { PostgresDialect, type Dialect } from 'kysely';
import pg from 'pg';
import { createPgPool } from '../postgres-pool.js';
import type { PosDbConfig } from './db-config.js';

// pg returns int8 as text to protect values above 2^53; POS counters never get there.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function postgresDialect(config: Extract<PosDbConfig, { dialect: 'postgres' }>): Dialect {
  return new PostgresDialect({
    pool: createPgPool({ ...withLockTimeout(config.url, config.lockTimeoutMs), max: config.poolSize }),
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
