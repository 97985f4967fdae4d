/**
 * One embedded PostgreSQL per test project, with template databases that each test file
 * clones (CREATE DATABASE … TEMPLATE takes milliseconds): the reference schema empty, seeded as
 * demo branch 1 (no forced rules) and as demo branch 2 (forced reason and discount type), and a
 * migrated gateway store.
 *
 * It also builds the fleet console into dist/console/, as `npm start` and `npm run build` do.
 *
 * The `mssql` project keeps the gateway store there but puts every POS database on SQL Server
 * (see sqlserver.ts); without a SQL Server it starts nothing and its one file reports the skip.
 *
 * Every process a test starts ends with it: the run gets its own temporary folder (TMPDIR) and
 * a mark in its workers' environment, and the last project's teardown fails the run when a
 * process from that folder or with that mark is still alive (processes.ts), after ending it.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/embedded-postgres/cluster.js';
import { createPosDatabase } from '../../src/demo/pos-database.js';
import { buildConsole } from '../../scripts/build-console.js';
import { GatewayStore } from '../../src/gateway/store.js';
import type { MssqlConfig, SqlServerSource } from './sqlserver-source.js';
import { babelfishVersion, dropSqlServerDatabases, startSqlServer } from './sqlserver.js';
import { endProcesses, leftoverProcesses, processesListed, RUN_MARK } from './processes.js';
import { GATEWAY_TEMPLATE, POS_TEMPLATES, schemaFileOf, type PosSchemaVersion } from './templates.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgPort: number;
    /** Which reference schema the POS databases are built from. */
    posSchema: PosSchemaVersion;
    /** Set by vitest.config.ts for the `mssql` project. */
    sqlServerSource: SqlServerSource;
    /**
     * The `mssql` project's server (its master database), the name prefix of this run's
     * databases, and Babelfish's version when the server is Babelfish (null on SQL Server).
     */
    sqlServer: { config: MssqlConfig; prefix: string; babelfish: string | null } | null;
    /** Why the `mssql` project's SQL Server could not be started, when it had a source. */
    sqlServerFailure: string | null;
  }
}

/** The fleet console the gateways serve (dist/console/), built once for all projects of a run. */
let consoleBuilt: Promise<unknown> | undefined;

/** This run's temporary folder and mark, and how many projects have yet to tear down. */
let run: { dir: string; mark: string; projects: number } | undefined;

/** Set before vitest starts its workers, which take the environment of this process. */
function markRun() {
  if (run) return;
  const dir = mkdtempSync(path.join(tmpdir(), 'ba-run-'));
  // As /tmp: the embedded PostgreSQL, run as root, runs as the system user postgres.
  chmodSync(dir, 0o1777);
  run = { dir, mark: path.basename(dir), projects: 0 };
  process.env.TMPDIR = dir;
  process.env[RUN_MARK] = run.mark;
}

/** Fails the run (after ending them) when processes a test started outlive the suite. */
async function checkLeftovers() {
  if (!run) return;
  const { dir, mark } = run;
  if (!processesListed) console.warn('no /proc here: the suite did not check for processes its tests left behind');
  const left = await endProcesses(leftoverProcesses(mark, dir));
  rmSync(dir, { recursive: true, force: true });
  if (left.length === 0) return;
  process.exitCode = 1;
  throw new Error(`the suite left ${left.length} process(es) alive (now killed):\n${left.map((p) => `  ${p.pid} ${p.command}`).join('\n')}`);
}

/** `teardown`, then the leftover check once the last project has torn down. */
function counted(teardown: () => Promise<unknown>): () => Promise<void> {
  run!.projects++;
  return async () => {
    try {
      await teardown();
    } finally {
      if (--run!.projects === 0) await checkLeftovers();
    }
  };
}

export default async function setup(project: TestProject) {
  // vitest also runs global setups for the root project, which runs no tests.
  if (project.isRootProject()) return;
  markRun();
  await (consoleBuilt ??= buildConsole());
  const posSchema: PosSchemaVersion = project.name === 'sr10' ? 'sr10' : 'sr11';
  const source = project.name === 'mssql' ? project.config.provide?.sqlServerSource : undefined;
  project.provide('posSchema', posSchema);
  project.provide('sqlServer', null);
  project.provide('sqlServerFailure', null);
  if (source && 'skip' in source) {
    project.provide('pgPort', 0);
    return counted(() => Promise.resolve());
  }

  const cluster = await startEmbeddedPostgres();
  try {
    await cluster.admin(`CREATE DATABASE ${GATEWAY_TEMPLATE}`);
    const store = new GatewayStore(cluster.url(GATEWAY_TEMPLATE));
    await store.migrate();
    await store.close();
    if (!source) {
      const schemaFile = schemaFileOf(posSchema);
      await Promise.all(Object.values(POS_TEMPLATES).map((t) => createPosDatabase(cluster, t.database, t.seed, schemaFile)));
    }
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  project.provide('pgPort', cluster.port);
  if (!source) return counted(() => cluster.stop());

  // A server that cannot start fails the mssql project's tests (each says why), not the other projects.
  const server = await startSqlServer(source.source).catch((error: unknown) => {
    project.provide('sqlServerFailure', `the SQL Server from ${source.source} could not be started: ${String(error)}`);
    return undefined;
  });
  if (!server) return counted(() => cluster.stop());
  if (source.source === 'MSSQL_URL') {
    // Reaches the server once before any test, and clears what aborted runs left a day ago or more.
    const reachable = await dropSqlServerDatabases(server.config, 'ba_t_', 24).then(
      () => true,
      (error: unknown) => {
        project.provide('sqlServerFailure', `the SQL Server of MSSQL_URL could not be prepared: ${String(error)}`);
        return false;
      },
    );
    if (!reachable) return counted(() => cluster.stop());
  }
  const babelfish = await babelfishVersion(server.config).catch((error: unknown) => {
    project.provide('sqlServerFailure', `the SQL Server from ${source.source} did not say what it is: ${String(error)}`);
    return undefined;
  });
  if (babelfish === undefined) return counted(() => Promise.all([server.stop(), cluster.stop()]));
  if (babelfish) console.log(`SQL Server suite on Babelfish ${babelfish}: the tests that need SQL Server's own behaviour skip, each saying why.`);
  const prefix = `ba_t_${randomBytes(3).toString('hex')}_`;
  project.provide('sqlServer', { config: server.config, prefix, babelfish });
  return counted(async () => {
    // A container goes away whole; a shared server keeps nothing of this run.
    if (source.source === 'MSSQL_URL')
      await dropSqlServerDatabases(server.config, prefix).catch((error: unknown) =>
        console.error(`could not drop the test databases ${prefix}*: ${String(error)}`),
      );
    await Promise.all([server.stop(), cluster.stop()]);
  });
}
