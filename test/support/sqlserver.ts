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
  if (source === 'MSSQL_URL') return { config: parseMssqlUrl(process.env.MSSQL_URL!), stop: async () => undefined };
  const { MSSQLServerContainer } = await import('@testcontainers/mssqlserver');
  const container = await new MSSQLServerContainer('mcr.microsoft.com/mssql/server:2022-latest').acceptLicense().start();
  return {
    config: parseMssqlUrl(`mssql://${container.getUsername()}:${encodeURIComponent(container.getPassword())}@${container.getHost()}:${container.getPort()}/master`),
    stop: async () => {
      await container.stop();
    },
  };
}

/** Runs one statement on the server's master database. */
export async function onMaster(server: MssqlConfig, statement: string): Promise<void> {
  const master = createPosDb({ ...server, database: 'master', poolSize: 1 });
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

export async function dropSqlServerDatabases(server: MssqlConfig, prefix: string): Promise<void> {
  const master = createPosDb({ ...server, database: 'master', poolSize: 1 });
  try {
    const { rows } = await sql<{ name: string }>`select name from sys.databases where name like ${`${prefix}%`}`.execute(master.db);
    for (const { name } of rows) {
      // An offline database (a test that failed mid-outage) cannot go single-user but drops as it is.
      await sql
        .raw(`ALTER DATABASE ${identifier(name)} SET SINGLE_USER WITH ROLLBACK IMMEDIATE`)
        .execute(master.db)
        .catch(() => undefined);
      await sql.raw(`DROP DATABASE ${identifier(name)}`).execute(master.db);
    }
  } finally {
    await master.close();
  }
}
