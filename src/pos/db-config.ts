/** How to reach a POS database: what db.ts and each dialect's module (postgres-dialect.ts, mssql-dialect.ts) share. */
/** Settings both dialects share. */
interface PosDbCommon {
  poolSize?: number;
  /**
   * How long a statement waits for a row or table a terminal holds before it gives up
   * (`pos_busy`), rather than holding the job until its deadline. Default 10 s: twice the
   * interval of SQL Server's deadlock monitor, so a deadlock is still found and retried first.
   */
  lockTimeoutMs?: number;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

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
      encrypt?: boolean;
      trustServerCertificate?: boolean;
      connectTimeoutMs?: number;
      requestTimeoutMs?: number;
    });
