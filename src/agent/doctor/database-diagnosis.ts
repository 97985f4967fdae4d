/**
 * Why a connection to the POS database failed, and what a branch's IT person should do about it:
 * used by the doctor, by `branch-agent migrate` and by the service's start-up log.
 */
import { errorCodes, NETWORK_CODES } from '../../database-errors.js';
import type { PosDbConfig } from '../../pos/db.js';
import { DEFAULT_TIMEOUT_MS, fullMessage } from './report.js';

export type DatabaseFailure = 'host-unreachable' | 'login-failed' | 'database-missing' | 'other';

export interface ClassifiedDatabaseError {
  cause: DatabaseFailure;
  /** A finer reason: `refused`, `name`, `timeout`, `instance`, `password-expired`, `account-disabled`. */
  reason?: string;
  message: string;
}

/**
 * Maps a failed connection attempt (pg, tedious or the socket below them) to what went wrong.
 * `serverErrors` are the SQL Server error numbers received during the login (tedious reports
 * only the last one in the error itself).
 */
export function classifyDatabaseError(error: unknown, serverErrors: number[] = []): ClassifiedDatabaseError {
  const message = fullMessage(error);
  const codes = errorCodes(error);
  // PostgreSQL SQLSTATEs.
  if (codes.includes('3D000')) return { cause: 'database-missing', message };
  if (codes.includes('28P01') || codes.includes('28000')) return { cause: 'login-failed', message };
  // SQL Server: 4060 "Cannot open database", then 18456 "Login failed for user".
  if (codes.includes('ELOGIN')) {
    if (serverErrors.includes(4060) || /Cannot open database/i.test(message)) return { cause: 'database-missing', message };
    if (serverErrors.includes(18488) || serverErrors.includes(18487)) return { cause: 'login-failed', reason: 'password-expired', message };
    if (serverErrors.includes(18470)) return { cause: 'login-failed', reason: 'account-disabled', message };
    return { cause: 'login-failed', message };
  }
  if (codes.includes('EINSTLOOKUP')) return { cause: 'host-unreachable', reason: 'instance', message };
  for (const code of codes) {
    if (NETWORK_CODES[code]) return { cause: 'host-unreachable', reason: NETWORK_CODES[code], message };
  }
  if (/timeout|timed out/i.test(message)) return { cause: 'host-unreachable', reason: 'timeout', message };
  return { cause: 'other', message };
}

/** One line for a log or a console: why the POS database refused, and what to do about it. */
export function explainDatabaseError(config: PosDbConfig, error: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): string {
  const failure = classifyDatabaseError(error);
  return `${failure.message} — ${databaseAdvice(config, failure, timeoutMs)}`;
}

export function databaseAdvice(config: PosDbConfig, failure: ClassifiedDatabaseError, timeoutMs: number): string {
  if (config.dialect === 'postgres') {
    switch (failure.cause) {
      case 'host-unreachable':
        return failure.reason === 'name'
          ? 'The host name in agent.database.url does not resolve: correct it.'
          : failure.reason === 'timeout'
            ? `No answer within ${timeoutMs / 1000} s: check the host and port in agent.database.url and any firewall on the way.`
            : 'Nothing accepts connections at the host and port of agent.database.url: start PostgreSQL or correct the URL.';
      case 'login-failed':
        return 'PostgreSQL refused the user or password in agent.database.url: correct them (percent-encode special characters in the password).';
      case 'database-missing':
        return 'The server answers but has no database of that name: correct the database name at the end of agent.database.url.';
      default:
        return 'Check agent.database.url and the PostgreSQL server log.';
    }
  }
  const target = config.instanceName ? `${config.server}\\${config.instanceName}` : `${config.server}:${config.port ?? 1433}`;
  switch (failure.cause) {
    case 'host-unreachable':
      switch (failure.reason) {
        case 'instance':
          return (
            `The instance "${config.instanceName}" was not found on ${config.server} through the SQL Server Browser (UDP 1434): ` +
            'check agent.database.instanceName (Soft Restaurant installs NATIONALSOFT by default), start the "SQL Server Browser" service, ' +
            'or set agent.database.port to the fixed TCP port of the instance instead of instanceName.'
          );
        case 'name':
          return `The host name "${config.server}" does not resolve: correct agent.database.server (use localhost when SQL Server runs on this machine).`;
        case 'timeout':
          return (
            `No answer from ${target} within the connect timeout: a firewall blocks the port, the address is wrong, or the server is off. ` +
            'Check agent.database.server/port and the Windows firewall rule for SQL Server.'
          );
        default:
          return (
            `Nothing accepts connections at ${target}: start the SQL Server service of the POS (services.msc), ` +
            'enable TCP/IP for the instance in SQL Server Configuration Manager, and check agent.database.server/instanceName/port.'
          );
      }
    case 'login-failed': {
      const user = config.authentication.user;
      if (failure.reason === 'password-expired')
        return `The password of "${user}" has expired or must be changed: change it in SQL Server, then in the config (or POS_DB_PASSWORD).`;
      if (failure.reason === 'account-disabled') return `The login "${user}" is disabled in SQL Server: enable it or use another login.`;
      return (
        `SQL Server refused the login "${user}": check agent.database.authentication.user and password (the POS_DB_PASSWORD environment variable overrides the file)` +
        (config.authentication.type === 'sql' ? ', and that SQL Server accepts SQL Server authentication (mixed mode).' : ' and the domain.')
      );
    }
    case 'database-missing':
      return (
        `The login works but the database "${config.database}" does not exist or "${config.authentication.user}" may not open it: ` +
        'correct agent.database.database to the database the POS uses (see SQL Server Management Studio) or map the login to it.'
      );
    default:
      return `Check agent.database and the SQL Server error log on ${config.server}.`;
  }
}

export const FAILURE_TEXT: Record<DatabaseFailure, string> = {
  'host-unreachable': 'server not reachable',
  'login-failed': 'login failed',
  'database-missing': 'database missing',
  other: 'connection failed',
};

/**
 * One connection attempt that reports exactly why it failed, without pools or retries. The
 * driver loads here, not with the module: the service imports the advice above on every start.
 */
export async function probeDatabase(config: PosDbConfig, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ClassifiedDatabaseError | null> {
  if (config.dialect === 'postgres') {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: config.url, connectionTimeoutMillis: timeoutMs });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      return null;
    } catch (error) {
      return classifyDatabaseError(error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  const [tedious, { tediousConfig }] = await Promise.all([import('tedious'), import('../../pos/mssql-dialect.js')]);
  const base = tediousConfig(config);
  const connection = new tedious.Connection({
    ...base,
    options: { ...base.options, connectTimeout: config.connectTimeoutMs ?? Math.max(timeoutMs, 15_000), maxRetriesOnTransientErrors: 0 },
  });
  const serverErrors: number[] = [];
  connection.on('errorMessage', (token: { number: number }) => serverErrors.push(token.number));
  connection.on('error', () => undefined);
  return new Promise((resolve) => {
    connection.connect((error) => {
      connection.close();
      resolve(error ? classifyDatabaseError(error, serverErrors) : null);
    });
  });
}
