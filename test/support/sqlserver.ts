/**
 * The SQL Server the `mssql` project runs on, and its test databases. SQL Server has no
 * CREATE DATABASE … TEMPLATE, so every test database is created and filled afresh; each run's
 * databases share a prefix and are dropped together when the run ends.
 *
 * Any TDS endpoint will do (MSSQL_URL), Babelfish included: a T-SQL engine on PostgreSQL that
 * has no ALTER DATABASE (babelfish.ts lists what else it does otherwise).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { errorsBehind, isDeadlock } from '../../src/database-errors.js';
import { createPosDb, type PosConnection } from '../../src/pos/db.js';
import { parseMssqlUrl, type MssqlConfig, type SqlServerSource } from './sqlserver-source.js';

export interface SqlServer {
  config: MssqlConfig;
  stop(): Promise<void>;
}

export async function startSqlServer(source: Extract<SqlServerSource, { source: string }>['source']): Promise<SqlServer> {
  if (source === 'MSSQL_URL') return { config: parseMssqlUrl(process.env.MSSQL_URL!), stop: () => Promise.resolve() };
  const { MSSQLServerContainer } = await import('@testcontainers/mssqlserver');
  const container = await new MSSQLServerContainer('mcr.microsoft.com/mssql/server:2022-latest').acceptLicense().start();
  return {
    config: parseMssqlUrl(
      `mssql://${container.getUsername()}:${encodeURIComponent(container.getPassword())}@${container.getHost()}:${container.getPort()}/master`,
    ),
    stop: async () => {
      await container.stop();
    },
  };
}

async function withMaster<T>(server: MssqlConfig, use: (master: PosConnection) => Promise<T>): Promise<T> {
  const master = await createPosDb({ ...server, database: 'master', poolSize: 1 });
  try {
    return await use(master);
  } finally {
    await master.close();
  }
}

/** Runs one statement on the server's master database. */
export function onMaster(server: MssqlConfig, statement: string): Promise<void> {
  return withMaster(server, async (master) => {
    await sql.raw(statement).execute(master.db);
  });
}

/** Babelfish's version when the server is Babelfish; null on SQL Server, which has no such property. */
export function babelfishVersion(server: MssqlConfig): Promise<string | null> {
  return withMaster(server, async (master) => {
    const { rows } = await sql<{ version: string | null }>`select cast(serverproperty('babelfishversion') as varchar(64)) as version`.execute(master.db);
    return rows[0]?.version ?? null;
  });
}

/**
 * CREATE DATABASE failed only because another one was updating the server's catalog at the same
 * moment, and succeeds when sent again. SQL Server: 1807, the model database (which every new
 * database copies) could not be locked exclusively, or 1205, a deadlock on the catalog. Babelfish
 * reports PostgreSQL's "tuple concurrently updated" (two databases granting their roles on the
 * one PostgreSQL database) under 33557097, its number for every unmapped error: the message tells.
 */
export function isConcurrentCatalogUpdate(error: unknown): boolean {
  return (
    isDeadlock(error) ||
    errorsBehind(error).some((e) => e.number === 1807 || (typeof e.message === 'string' && /tuple concurrently (?:updated|deleted)/.test(e.message)))
  );
}

/** Runs `attempt` again, a little later each time, while it fails only for a concurrent catalog update. */
export async function retryConcurrentCatalogUpdate<T>(attempt: () => Promise<T>, tries = 10): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= tries || !isConcurrentCatalogUpdate(error)) throw error;
      await sleep(50 * n + Math.random() * 100);
    }
  }
}

const identifier = (name: string) => {
  if (!/^\w+$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  return `[${name}]`;
};

export async function createSqlServerDatabase(server: MssqlConfig, name: string): Promise<MssqlConfig> {
  await retryConcurrentCatalogUpdate(() => onMaster(server, `CREATE DATABASE ${identifier(name)}`));
  return { ...server, database: name };
}

/** Takes a database offline (closing every connection to it) or back online: an outage of one branch's POS. */
export async function setSqlServerDatabaseOnline(server: MssqlConfig, name: string, online: boolean): Promise<void> {
  await onMaster(server, `ALTER DATABASE ${identifier(name)} SET ${online ? 'ONLINE' : 'OFFLINE WITH ROLLBACK IMMEDIATE'}`);
}

/**
 * The statements that drop a test database. On SQL Server it comes back online first (a test
 * that failed mid-outage left it offline; its files go only with it online) and is taken from
 * the sessions still in it. Babelfish has no ALTER DATABASE, and no offline database either.
 */
export function dropDatabaseStatements(name: string, engine: { babelfish: boolean }): Array<{ statement: string; mayFail: boolean }> {
  const drop = { statement: `DROP DATABASE ${identifier(name)}`, mayFail: false };
  if (engine.babelfish) return [drop];
  return [
    { statement: `ALTER DATABASE ${identifier(name)} SET ONLINE`, mayFail: true },
    { statement: `ALTER DATABASE ${identifier(name)} SET SINGLE_USER WITH ROLLBACK IMMEDIATE`, mayFail: false },
    drop,
  ];
}

/**
 * Drops the databases whose names start with `prefix` (only those created more than
 * `olderThanHours` ago, when given). Each is dropped on its own, so one that resists does not
 * keep the others.
 */
export async function dropSqlServerDatabases(server: MssqlConfig, prefix: string, olderThanHours?: number): Promise<void> {
  const engine = { babelfish: (await babelfishVersion(server)) !== null };
  const failed: string[] = [];
  await withMaster(server, async (master) => {
    const pattern = `${prefix.replace(/[_%[]/g, (c) => `[${c}]`)}%`;
    const age = olderThanHours === undefined ? sql`` : sql` and create_date < dateadd(hour, ${-olderThanHours}, getdate())`;
    const { rows } = await sql<{ name: string }>`select name from sys.databases where name like ${pattern}${age}`.execute(master.db);
    for (const { name } of rows) {
      try {
        for (const { statement, mayFail } of dropDatabaseStatements(name, engine)) {
          const run = sql.raw(statement).execute(master.db);
          await (mayFail ? run.catch(() => undefined) : run);
        }
      } catch (error) {
        failed.push(`${name}: ${String(error)}`);
      }
    }
  });
  if (failed.length > 0) throw new Error(`could not drop ${failed.join('; ')}`);
}
