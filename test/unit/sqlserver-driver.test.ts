import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as tedious from 'tedious';
import { DummyDriver, Kysely, MssqlAdapter, MssqlIntrospector, type DatabaseConnection } from 'kysely';
import { isConnectionError, isDeadlock, isLockTimeout, isNumericOverflow, isStatementTimeout, isUniqueViolation } from '../../src/database-errors.js';
import { tediousConfig } from '../../src/pos/mssql-dialect.js';
import { withLockTimeout } from '../../src/pos/postgres-dialect.js';
import { MssqlPosQueryCompiler } from '../../src/pos/sql-dialect.js';
import { PosMssqlAdapter, PosRequest, PosTediousConnection, pgShapedRow } from '../../src/pos/mssql-driver.js';
import type { PosDatabase } from '../../src/pos/schema.js';
import { posDatabase } from '../../src/config/schema.js';

/** What tedious and pg report for SQL Server / PostgreSQL failures, without a server. */
const requestError = (number: number, severity: number) => Object.assign(new tedious.RequestError('x', 'EREQUEST'), { number, class: severity });

const column = (type: string, value: unknown, scale?: number) => ({ value, metadata: { type: { name: type }, scale } });

describe('rows read from SQL Server take the shapes pg gives', () => {
  it('numeric becomes text with the column scale; bigint a number; the rest is untouched', () => {
    const row = [
      column('DecimalN', 36.9241, 4),
      column('NumericN', 2, 6),
      column('Decimal', -0.5, 2),
      column('Money', 10.1),
      column('MoneyN', 89),
      column('NumericN', null, 4),
      column('BigInt', '9007199254740'),
      column('IntN', '42'),
      column('IntN', 7),
      column('Bit', true),
      column('VarChar', '0001'),
    ];
    pgShapedRow(row);
    expect(row.map((c) => c.value)).toEqual(['36.9241', '2.000000', '-0.50', '10.1000', '89.0000', null, 9007199254740, 42, 7, true, '0001']);
  });

  it('restores the exact digits of any amount tedious decoded as a double (15 significant digits)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n - 1n), max: 10n ** 15n - 1n }), (units) => {
        // tedious: sign * unsigned integer / 10^scale, in floating point.
        const sign = units < 0n ? -1 : 1;
        const decoded = (sign * Number(units < 0n ? -units : units)) / Math.pow(10, 4);
        const row = [column('NumericN', decoded, 4)];
        pgShapedRow(row);
        const abs = units < 0n ? -units : units;
        const text = `${units < 0n && abs !== 0n ? '-' : ''}${abs / 10_000n}.${String(abs % 10_000n).padStart(4, '0')}`;
        expect(row[0]!.value).toBe(text);
      }),
      { numRuns: 2_000 },
    );
  });

  it('sends ASCII text as varchar (index seeks on varchar keys) and other text as nvarchar', () => {
    const request = new PosRequest('select 1', () => undefined);
    request.addParameter('1', tedious.TYPES.NVarChar, '3004');
    request.addParameter('2', tedious.TYPES.NVarChar, 'Café de olla');
    request.addParameter('3', tedious.TYPES.NVarChar, null);
    request.addParameter('4', tedious.TYPES.Int, 7);
    expect(request.parameters.map((p) => p.type.name)).toEqual(['VarChar', 'NVarChar', 'NVarChar', 'Int']);
  });

  it('reshapes the row before Kysely’s row listener sees it', () => {
    const request = new PosRequest('select 1', () => undefined);
    const seen: unknown[] = [];
    request.on('row', (columns: Array<{ value: unknown }>) => seen.push(...columns.map((c) => c.value)));
    request.emit('row', [column('DecimalN', 89, 4), column('BigInt', '12')]);
    expect(seen).toEqual(['89.0000', 12]);
  });
});

describe('telling an unavailable database from a rejected statement', () => {
  it.each<[string, unknown]>([
    ['login refused or database not openable', new tedious.ConnectionError('Login failed', 'ELOGIN')],
    ['socket gone', new tedious.ConnectionError('Connection lost - read ECONNRESET', 'ESOCKET')],
    ['database offline (942)', requestError(942, 14)],
    ['session killed (596)', requestError(596, 21)],
    ['any severity 20+ error', requestError(0, 20)],
    ['PostgreSQL shutting down', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    // A branch whose database host does not resolve or route at boot must be retried, not exit.
    ...['ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].map((code): [string, unknown] => [
      `pg: ${code}`,
      Object.assign(new Error(`getaddrinfo ${code} pos-server`), { code, syscall: 'connect' }),
    ]),
    [
      'tedious: a ConnectionError wrapping ENOTFOUND',
      new tedious.ConnectionError('Failed to connect to pos-server:1433', 'ESOCKET', {
        cause: Object.assign(new Error('getaddrinfo ENOTFOUND pos-server'), { code: 'ENOTFOUND' }),
      }),
    ],
  ])('%s is a connection failure', (_name, error) => {
    expect(isConnectionError(error)).toBe(true);
  });

  it.each([
    ['duplicate key (2627)', requestError(2627, 14)],
    ['invalid column (207)', requestError(207, 16)],
    ['deadlock victim (1205)', requestError(1205, 13)],
    ['PostgreSQL unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
  ])('%s is not', (_name, error) => {
    expect(isConnectionError(error)).toBe(false);
  });
});

describe('deadlock victims', () => {
  it('are recognised on both servers, and nothing else is', () => {
    expect(isDeadlock(requestError(1205, 13))).toBe(true);
    expect(isDeadlock(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(true);
    expect(isDeadlock(requestError(2627, 14))).toBe(false);
    expect(isDeadlock(Object.assign(new Error('could not serialize'), { code: '40001' }))).toBe(false);
  });
});

describe('lock timeouts', () => {
  it('are recognised on both servers, and nothing else is', () => {
    expect(isLockTimeout(requestError(1222, 16))).toBe(true);
    expect(isLockTimeout([requestError(1222, 16), requestError(3621, 0)])).toBe(true);
    expect(isLockTimeout(Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }))).toBe(true);
    expect(isLockTimeout(requestError(1205, 13))).toBe(false);
    expect(isLockTimeout(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))).toBe(false);
  });
});

describe('values too large for their column', () => {
  it('are recognised on both servers, and nothing else is', () => {
    expect(isNumericOverflow(requestError(8115, 16))).toBe(true);
    expect(isNumericOverflow(requestError(220, 16))).toBe(true);
    expect(isNumericOverflow(Object.assign(new Error('numeric field overflow'), { code: '22003' }))).toBe(true);
    expect(isNumericOverflow(requestError(2627, 14))).toBe(false);
    expect(isNumericOverflow(Object.assign(new Error('invalid input syntax'), { code: '22P02' }))).toBe(false);
  });
});

/** A SQL Server database section with the schema's defaults, as the agent reads one. */
function mssqlDatabase(section: Omit<Extract<Parameters<typeof posDatabase>[0], { dialect: 'mssql' }>, 'dialect'>) {
  const config = posDatabase({ dialect: 'mssql', ...section });
  if (config.dialect !== 'mssql') throw new Error('not a SQL Server section');
  return config;
}

const connection = () =>
  new PosTediousConnection(
    tediousConfig(
      mssqlDatabase({ server: '127.0.0.1', port: 1, database: 'pos', authentication: { type: 'sql', user: 'sa', password: 'x' }, connectTimeoutMs: 2_000 }),
    ),
    5_000,
  );

describe('opening a session', () => {
  it('sets the lock timeout and a low deadlock priority with the session options tedious sends at login and on every reset', () => {
    const batch = connection().getInitialSql().split('\n');
    expect(batch.slice(-2)).toEqual(['set lock_timeout 5000', 'set deadlock_priority low']);
    expect(batch).toContain('set ansi_nulls on');
  });
});

describe('the PostgreSQL lock timeout', () => {
  it('joins the options a URL already carries instead of being replaced by them', () => {
    const joined = withLockTimeout('postgres://u:p%40x@127.0.0.1:5432/pos?options=-c%20search_path%3Dsr&sslmode=disable', 2_500);
    const url = new URL(joined.connectionString);
    expect(url.searchParams.get('options')).toBe('-c search_path=sr -c lock_timeout=2500');
    expect(url.searchParams.get('sslmode')).toBe('disable');
    expect(url.password).toBe('p%40x');
    expect(joined.options).toBeUndefined();
    expect(new URL(withLockTimeout('postgres://u:p@127.0.0.1/pos', 10_000).connectionString).searchParams.get('options')).toBe('-c lock_timeout=10000');
  });

  it('goes as a separate setting with a socket-path URL, which carries no options', () => {
    expect(withLockTimeout('postgresql://user@/pos?host=/run/postgresql', 1_000)).toEqual({
      connectionString: 'postgresql://user@/pos?host=/run/postgresql',
      options: '-c lock_timeout=1000',
    });
  });
});

describe('rolling back after the server already did', () => {
  it('is a no-op when the server has ended the transaction (a deadlock victim)', () => {
    const c = connection();
    c.inTransaction = false;
    const errors: unknown[] = [];
    c.rollbackTransaction((error) => errors.push(error));
    expect(errors).toEqual([undefined]);
  });

  it('goes to the server while a transaction is open', async () => {
    const c = connection();
    c.inTransaction = true;
    // Never connected: tedious itself refuses the request, which shows it was really sent on.
    const error = await new Promise<Error | null | undefined>((resolve) => c.rollbackTransaction(resolve));
    expect(String(error)).toMatch(/LoggedIn state/);
  });
});

/** SQL Server answering an insert's `; select scope_identity()` with one row. */
class IdentityDriver extends DummyDriver {
  override acquireConnection(): Promise<DatabaseConnection> {
    return Promise.resolve({ executeQuery: () => Promise.resolve({ rows: [{ folio: 41 }] }) as never, streamQuery: () => (async function* () {})() });
  }
}

describe('an insert returning its identity', () => {
  const insert = (adapter: MssqlAdapter) =>
    new Kysely<PosDatabase>({
      dialect: {
        createAdapter: () => adapter,
        createDriver: () => new IdentityDriver(),
        createIntrospector: (k) => new MssqlIntrospector(k),
        createQueryCompiler: () => new MssqlPosQueryCompiler(),
      },
    })
      .insertInto('tempcheques')
      .values({ numcheque: 1 } as never)
      .returning('folio')
      .executeTakeFirst();

  it('hands back the row SQL Server sent', async () => {
    expect(await insert(new PosMssqlAdapter())).toEqual({ folio: 41 });
  });

  it('which Kysely’s own SQL Server adapter would drop', async () => {
    expect(await insert(new MssqlAdapter())).not.toEqual({ folio: 41 });
  });
});

describe('several server errors for one statement (what Kysely rejects with as an array)', () => {
  const terminated = requestError(3621, 0);

  it('a duplicate key followed by "statement terminated" is still a duplicate key', () => {
    expect(isUniqueViolation([requestError(2627, 14), terminated])).toBe(true);
    expect(isUniqueViolation(new AggregateError([requestError(2601, 14), terminated]))).toBe(true);
    expect(isUniqueViolation([requestError(207, 16), terminated])).toBe(false);
  });

  it('a killed session among them is unavailability; a deadlock among them is a deadlock', () => {
    expect(isConnectionError([requestError(596, 21), requestError(0, 20)])).toBe(true);
    expect(isDeadlock([requestError(1205, 13), terminated])).toBe(true);
  });

  it('a request timeout is a statement timeout, not a lost connection', () => {
    const timeout = new tedious.RequestError('Timeout: Request failed to complete in 30000ms', 'ETIMEOUT');
    expect(isStatementTimeout(timeout)).toBe(true);
    expect(isConnectionError(timeout)).toBe(false);
    const connectTimeout = new tedious.ConnectionError('Failed to connect in 15000ms', 'ETIMEOUT');
    expect(isStatementTimeout(connectTimeout)).toBe(false);
    expect(isConnectionError(connectTimeout)).toBe(true);
  });
});
