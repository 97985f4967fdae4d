/**
 * What a database failure means, for both drivers (pg and tedious) and both databases: the
 * agent's POS database and the gateway's store. One classifier, so the agent's retry at start-up,
 * the runner's answers, the gateway's 503 and the doctor's diagnosis never disagree.
 * Errors are recognised by their codes and class names, not by `instanceof`, so this module
 * loads no driver.
 */

export interface DriverError {
  code?: unknown;
  name?: unknown;
  number?: unknown;
  class?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/**
 * Every error behind one failure: the errors of an AggregateError or of the bare array Kysely
 * rejects with (SQL Server sends several for one statement: a duplicate key comes with "The
 * statement has been terminated"), and the causes each one wraps (tedious wraps the socket's
 * ENOTFOUND in a ConnectionError).
 */
export function errorsBehind(error: unknown): DriverError[] {
  const found: DriverError[] = [];
  const visit = (e: unknown) => {
    if (Array.isArray(e)) return e.forEach(visit);
    if (typeof e !== 'object' || e === null || found.includes(e)) return;
    const driverError = e as DriverError;
    found.push(driverError);
    visit(driverError.cause);
    if (Array.isArray(driverError.errors)) driverError.errors.forEach(visit);
  };
  visit(error);
  return found;
}

const anyError = (error: unknown, test: (e: DriverError) => boolean) => errorsBehind(error).some(test);

/** tedious's errors set no `name`; their class tells a connection error from a request error. */
const kind = (e: DriverError) => (e as { constructor?: { name?: string } }).constructor?.name;

/** The string codes of an error and of everything behind it (`ECONNREFUSED`, `28P01`, `ELOGIN`). */
export function errorCodes(error: unknown): string[] {
  return errorsBehind(error).flatMap((e) => (typeof e.code === 'string' ? [e.code] : []));
}

/** Socket and name-resolution failures: the server could not be reached. The value is the doctor's finer reason. */
export const NETWORK_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'name',
  EAI_AGAIN: 'name',
  ETIMEDOUT: 'timeout',
  ETIMEOUT: 'timeout',
  EHOSTUNREACH: 'timeout',
  ENETUNREACH: 'timeout',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
};

/**
 * Driver codes that mean the connection is gone or could not be made: tedious's socket and login
 * codes, PostgreSQL's admin shutdown (57P01-57P03) and connection exceptions (08xxx).
 */
const CONNECTION_CODES = new Set([
  'ESOCKET',
  'ECONNCLOSED',
  'ENOTOPEN',
  'ELOGIN',
  'EINSTLOOKUP',
  '57P01',
  '57P02',
  '57P03',
  '08006',
  '08001',
  '08003',
  '08004',
]);

/**
 * SQL Server errors that mean the database itself is unavailable rather than the statement
 * wrong: 942 database offline, 4060 cannot open the database, 40613 database not currently
 * available, 596 session killed. Severity 20 and above always ends the connection.
 */
const MSSQL_UNAVAILABLE = new Set([942, 4060, 40613, 596]);

/** The database could not be reached or the connection broke, as opposed to a rejected statement. */
export function isConnectionError(error: unknown): boolean {
  return anyError(
    error,
    (e) =>
      (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || (e.code in NETWORK_CODES && kind(e) !== 'RequestError'))) ||
      kind(e) === 'ConnectionError' ||
      (typeof e.number === 'number' && MSSQL_UNAVAILABLE.has(e.number)) ||
      (typeof e.class === 'number' && e.class >= 20) ||
      (typeof e.message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error/i.test(e.message)),
  );
}

/** This transaction was chosen to end a deadlock and was rolled back whole: PostgreSQL 40P01, SQL Server 1205. */
export function isDeadlock(error: unknown): boolean {
  return anyError(error, (e) => e.code === '40P01' || e.number === 1205);
}

/**
 * A statement gave up waiting for a lock another session holds (PostgreSQL 55P03 after
 * lock_timeout, SQL Server 1222 after LOCK_TIMEOUT). The transaction is rolled back on the way out.
 */
export function isLockTimeout(error: unknown): boolean {
  return anyError(error, (e) => e.code === '55P03' || e.number === 1222);
}

/**
 * A value too large for its column (PostgreSQL 22003; SQL Server 8115, arithmetic overflow
 * converting to numeric, and 220 for the integer types). The statement wrote nothing.
 */
export function isNumericOverflow(error: unknown): boolean {
  return anyError(error, (e) => e.code === '22003' || e.number === 8115 || e.number === 220);
}

/** A duplicate-key error: PostgreSQL 23505, SQL Server 2627 (constraint) or 2601 (unique index). */
export function isUniqueViolation(error: unknown): boolean {
  return anyError(error, (e) => e.code === '23505' || e.number === 2627 || e.number === 2601);
}

/** A statement that ran past the driver's request timeout (tedious's RequestError ETIMEOUT; PostgreSQL 57014, statement_timeout). */
export function isStatementTimeout(error: unknown): boolean {
  return anyError(error, (e) => (kind(e) === 'RequestError' && e.code === 'ETIMEOUT') || e.code === '57014');
}
