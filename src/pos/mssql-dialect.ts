/** The SQL Server side of db.ts: tedious and tarn, loaded only for a POS database on SQL Server. */
import { MssqlDialect, MssqlIntrospector, type Dialect } from 'kysely';
import * as tedious from 'tedious';
import * as tarn from 'tarn';
import type { PosDbConfig } from './db-config.js';
import { PosMssqlAdapter, PosRequest, PosTediousConnection } from './mssql-driver.js';
import { MssqlPosQueryCompiler } from './sql-dialect.js';

export function mssqlDialect(config: Extract<PosDbConfig, { dialect: 'mssql' }>): Dialect {
  const base = new MssqlDialect({
    // A connection that cannot be made fails the request waiting for it at once (pos_unavailable),
    // rather than being retried until tarn's acquire timeout outlasts the gateway's job timeout.
    tarn: { ...tarn, options: { min: 0, max: config.poolSize, propagateCreateError: true } },
    tedious: {
      ...tedious,
      Request: PosRequest,
      connectionFactory: () => new PosTediousConnection(tediousConfig(config), config.lockTimeoutMs),
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
      encrypt: config.encrypt,
      trustServerCertificate: config.trustServerCertificate,
      // The POS stores branch-local wall-clock times; UTC conversion would shift every date.
      useUTC: false,
      lowerCaseGuids: true,
      connectTimeout: config.connectTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      appName: 'branch-agent',
    },
  };
}
