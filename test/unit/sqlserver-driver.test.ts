import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as tedious from 'tedious';
import { isConnectionError, isDeadlock, PosRequest, PosTediousConnection, pgShapedRow, tediousConfig } from '../../src/pos/db.js';

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
      column('NumericN', null, 4),
      column('BigInt', '9007199254740'),
      column('IntN', '42'),
      column('IntN', 7),
      column('Bit', true),
      column('VarChar', '0001'),
    ];
    pgShapedRow(row);
    expect(row.map((c) => c.value)).toEqual(['36.9241', '2.000000', '-0.50', '10.1000', null, 9007199254740, 42, 7, true, '0001']);
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
  it.each([
    ['login refused or database not openable', new tedious.ConnectionError('Login failed', 'ELOGIN')],
    ['socket gone', new tedious.ConnectionError('Connection lost - read ECONNRESET', 'ESOCKET')],
    ['database offline (942)', requestError(942, 14)],
    ['session killed (596)', requestError(596, 21)],
    ['any severity 20+ error', requestError(0, 20)],
    ['PostgreSQL shutting down', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
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

describe('rolling back after the server already did', () => {
  const connection = () =>
    new PosTediousConnection(tediousConfig({ dialect: 'mssql', server: '127.0.0.1', port: 1, database: 'pos', authentication: { type: 'sql', user: 'sa', password: 'x' } }));

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
