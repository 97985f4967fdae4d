/**
 * One embedded PostgreSQL per test project, with template databases that each test file
 * clones (CREATE DATABASE … TEMPLATE takes milliseconds): the reference schema empty, seeded as
 * demo branch 1 (no forced rules) and as demo branch 2 (forced reason and discount type), and a
 * migrated gateway store.
 *
 * The `mssql` project keeps the gateway store there but puts every POS database on SQL Server
 * (see sqlserver.ts); without a SQL Server it starts nothing and its one file reports the skip.
 */
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/demo/embedded-postgres.js';
import { createPosDatabase } from '../../src/demo/pos-database.js';
import { GatewayStore } from '../../src/gateway/store.js';
import type { MssqlConfig, SqlServerSource } from './sqlserver-source.js';
import { dropSqlServerDatabases, startSqlServer } from './sqlserver.js';
import { GATEWAY_TEMPLATE, POS_TEMPLATES, schemaFileOf, type PosSchemaVersion } from './templates.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgPort: number;
    /** Which reference schema the POS databases are built from. */
    posSchema: PosSchemaVersion;
    /** Set by vitest.config.ts for the `mssql` project. */
    sqlServerSource: SqlServerSource;
    /** The `mssql` project's server (its master database) and the name prefix of this run's databases. */
    sqlServer: { config: MssqlConfig; prefix: string } | null;
  }
}

export default async function setup(project: TestProject) {
  const posSchema: PosSchemaVersion = project.name === 'sr10' ? 'sr10' : 'sr11';
  const source = project.name === 'mssql' ? project.config.provide?.sqlServerSource : undefined;
  project.provide('posSchema', posSchema);
  project.provide('sqlServer', null);
  if (source && 'skip' in source) {
    project.provide('pgPort', 0);
    return;
  }

  const cluster = await startEmbeddedPostgres();
  const gatewayTemplate = (async () => {
    await cluster.admin(`CREATE DATABASE ${GATEWAY_TEMPLATE}`);
    const store = new GatewayStore(cluster.url(GATEWAY_TEMPLATE));
    await store.migrate();
    await store.close();
  })();
  project.provide('pgPort', cluster.port);

  if (source) {
    const server = await startSqlServer(source.source).catch(async (error: unknown) => {
      await cluster.stop();
      throw new Error(`the mssql project found a SQL Server source (${source.source}) but could not start it: ${String(error)}`, { cause: error });
    });
    const prefix = `ba_t_${randomBytes(3).toString('hex')}_`;
    await gatewayTemplate;
    project.provide('sqlServer', { config: server.config, prefix });
    return async () => {
      await dropSqlServerDatabases(server.config, prefix).finally(() => Promise.all([server.stop(), cluster.stop()]));
    };
  }

  const schemaFile = schemaFileOf(posSchema);
  await Promise.all([gatewayTemplate, ...Object.values(POS_TEMPLATES).map((t) => createPosDatabase(cluster, t.database, t.seed, schemaFile))]);
  return () => cluster.stop();
}
