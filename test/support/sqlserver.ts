/**
 * The SQL Server the `mssql` project runs on, and its test databases. SQL Server has no
 * CREATE DATABASE … TEMPLATE, so every test database is created and filled afresh; each run's
 * databases share a prefix and are dropped together when the run ends.
 */
import { sql } from 'kysely';
import { createPosDb } from '../../src/pos/db.js';
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

/** Runs one statement on the server's master database. */
export async function onMaster(server: MssqlConfig, statement: string): Promise<void> {
  const master = await createPosDb({ ...server, database: 'master', poolSize: 1 });
  try {
    await sql.raw(statement).execute(master.db);
  } finally {
    await master.close();
  }
}

const identifier = (name: string) => {
  if (!/^\w+$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  return `[${name}]`;
};

export async function createSqlServerDatabase(server: MssqlConfig, name: string): Promise<MssqlConfig> {
  await onMaster(server, `CREATE DATABASE ${identifier(name)}`);
  return { ...server, database: name };
}

/** Takes a database offline (closing every connection to it) or back online: an outage of one branch's POS. */
export async function setSqlServerDatabaseOnline(server: MssqlConfig, name: string, online: boolean): Promise<void> {
  await onMaster(server, `ALTER DATABASE ${identifier(name)} SET ${online ? 'ONLINE' : 'OFFLINE WITH ROLLBACK IMMEDIATE'}`);
}

/**
 * Drops the databases whose names start with `prefix` (only those created more than
 * `olderThanHours` ago, when given). Each is dropped on its own, so one that resists does not
 * keep the others.
 */
export async function dropSqlServerDatabases(server: MssqlConfig, prefix: string, olderThanHours?: number): Promise<void> {
  const master = await createPosDb({ ...server, database: 'master', poolSize: 1 });
  const failed: string[] = [];
  try {
    const pattern = `${prefix.replace(/[_%[]/g, (c) => `[${c}]`)}%`;
    const age = olderThanHours === undefined ? sql`` : sql` and create_date < dateadd(hour, ${-olderThanHours}, getdate())`;
    const { rows } = await sql<{ name: string }>`select name from sys.databases where name like ${pattern}${age}`.execute(master.db);
    for (const { name } of rows) {
      try {
        // An offline database (a test that failed mid-outage) comes back first, so its files go too.
        await sql
          .raw(`ALTER DATABASE ${identifier(name)} SET ONLINE`)
          .execute(master.db)
          .catch(() => undefined);
        await sql.raw(`ALTER DATABASE ${identifier(name)} SET SINGLE_USER WITH ROLLBACK IMMEDIATE`).execute(master.db);
        await sql.raw(`DROP DATABASE ${identifier(name)}`).execute(master.db);
      } catch (error) {
        failed.push(`${name}: ${String(error)}`);
      }
    }
  } finally {
    await master.close();
  }
  if (failed.length > 0) throw new Error(`could not drop ${failed.join('; ')}`);
}
