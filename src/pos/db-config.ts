/**
 * How to reach a POS database: what db.ts and each dialect's module (postgres-dialect.ts,
 * mssql-dialect.ts) share. The config schema (config/schema.ts, agent.database) declares each
 * setting with its default and fills them in: `posDatabase()` there for a database named in code.
 */
/** Settings both dialects share. */
interface PosDbCommon {
  poolSize: number;
  /** How long a statement waits for a row or table a terminal holds before it gives up (`pos_busy`). */
  lockTimeoutMs: number;
}

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
      encrypt: boolean;
      trustServerCertificate: boolean;
      connectTimeoutMs: number;
      requestTimeoutMs: number;
    });
