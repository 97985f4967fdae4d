/** The PostgreSQL side of db.ts: pg, loaded only for a POS database on PostgreSQL (demo, tests). */
import { PostgresDialect, type Dialect } from 'kysely';
import pg from 'pg';
import { createPgPool } from '../postgres-pool.js';
import type { PosDbConfig } from './db-config.js';
import { plannedOnceName } from './sql-dialect.js';

// pg returns int8 as text to protect values above 2^53; POS counters never get there.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/**
 * Sends the statements `planOnce` marked as named prepared statements: planned once per
 * connection. pg types query() with a dozen overloads; Kysely calls query(text, values) and
 * query(cursor), and everything but a marked text goes through untouched.
 */
class PlanningOnceClient extends pg.Client {
  // @ts-expect-error -- one signature in place of pg's overloads, see above.
  override query(text: unknown, ...rest: unknown[]) {
    const name = typeof text === 'string' ? plannedOnceName(text) : undefined;
    if (name) return super.query({ name, text: text as string, values: rest[0] as unknown[] });
    return (super.query as (...args: unknown[]) => unknown)(text, ...rest);
  }
}

export function postgresDialect(config: Extract<PosDbConfig, { dialect: 'postgres' }>): Dialect {
  return new PostgresDialect({
    pool: createPgPool({
      ...withLockTimeout(config.url, config.lockTimeoutMs),
      max: config.poolSize,
      Client: PlanningOnceClient as unknown as typeof pg.Client,
    }),
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
