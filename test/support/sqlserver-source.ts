/**
 * Where a SQL Server for the tests comes from: MSSQL_URL (any server, e.g.
 * mssql://sa:Secret1!@localhost:1433/master?encrypt=false or ?instance=SQLEXPRESS), or a
 * testcontainers SQL Server when a Docker engine runs here. Decided without starting anything,
 * because vitest.config.ts reads it to choose what the `mssql` project runs.
 */
import { execFileSync } from 'node:child_process';
import type { PosDbConfig } from '../../src/pos/db.js';
import { posDatabase } from '../../src/config/schema.js';

export type MssqlConfig = Extract<PosDbConfig, { dialect: 'mssql' }>;

export type SqlServerSource = { source: 'MSSQL_URL' | 'testcontainers' } | { skip: string };

export function parseMssqlUrl(text: string): MssqlConfig {
  const url = new URL(text);
  if (url.protocol !== 'mssql:' && url.protocol !== 'sqlserver:') throw new Error('MSSQL_URL must start with mssql://');
  const q = url.searchParams;
  const instanceName = q.get('instance') ?? undefined;
  const config = posDatabase({
    dialect: 'mssql',
    server: url.hostname,
    ...(instanceName ? { instanceName } : url.port ? { port: Number(url.port) } : {}),
    database: decodeURIComponent(url.pathname.slice(1)) || 'master',
    authentication: q.get('domain')
      ? { type: 'ntlm', domain: q.get('domain')!, user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
      : { type: 'sql', user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
    encrypt: q.get('encrypt') === 'true',
    trustServerCertificate: q.get('trustServerCertificate') !== 'false',
  });
  if (config.dialect !== 'mssql') throw new Error('MSSQL_URL must name a SQL Server');
  return config;
}

function dockerRuns(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

const CACHE = 'BRANCH_AGENT_TEST_SQLSERVER_SOURCE';

/** Decided once per run: vitest loads the config again for every project. */
export function sqlServerSource(): SqlServerSource {
  const cached = process.env[CACHE];
  if (cached) return JSON.parse(cached) as SqlServerSource;
  const found: SqlServerSource = process.env.MSSQL_URL
    ? { source: 'MSSQL_URL' }
    : dockerRuns()
      ? { source: 'testcontainers' }
      : { skip: 'MSSQL_URL is not set and no Docker engine runs here (docker info failed)' };
  process.env[CACHE] = JSON.stringify(found);
  return found;
}
