/**
 * What the SQL Server driver is handed for a date filter, without a server: tedious's
 * connection is stopped at its socket (connect and execSql), everything above it (Kysely's
 * mssql driver, our request class) runs as it does at a branch.
 */
import * as tedious from 'tedious';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dateFilterBound } from '../../src/protocol/common.js';
import { createPosDb, type PosConnection } from '../../src/pos/db.js';
import { posDatabase } from '../../src/config/schema.js';

interface SentParameter {
  name: string;
  type: string;
  value: unknown;
  scale: number | undefined;
}

const sent: SentParameter[][] = [];
let pos: PosConnection;

beforeAll(async () => {
  vi.spyOn(tedious.Connection.prototype, 'connect').mockImplementation(function (this: tedious.Connection, callback) {
    process.nextTick(() => callback?.(undefined));
    return this;
  });
  vi.spyOn(tedious.Connection.prototype, 'execSql').mockImplementation((request: tedious.Request) => {
    const parameters = request.parameters.map((p) => ({ name: p.name, type: p.type.name, value: p.value, scale: p.scale }));
    if (request.sqlTextOrProcedure !== 'select 1') sent.push(parameters);
    process.nextTick(() => {
      (request as unknown as { callback: (error: undefined, rowCount: number) => void }).callback(undefined, 0);
      request.emit('requestCompleted');
    });
  });
  vi.spyOn(tedious.Connection.prototype, 'close').mockImplementation(function (this: tedious.Connection) {
    process.nextTick(() => this.emit('end'));
  });
  pos = await createPosDb(
    posDatabase({
      dialect: 'mssql',
      server: '127.0.0.1',
      database: 'pos',
      authentication: { type: 'sql', user: 'sa', password: 'x' },
    }),
  );
});

afterAll(async () => {
  await pos?.close();
  vi.restoreAllMocks();
});

describe('date filter bounds sent to SQL Server', () => {
  it('keep their milliseconds: datetime2(7), not a datetime tedious rounds to 1/300 s in the client', async () => {
    const value = '2026-01-10T21:30:00.001Z';
    const start = dateFilterBound(value, 'start');
    const end = dateFilterBound(value, 'end');
    await pos.db.selectFrom('cheques').select('folio').where('fecha', start.op, start.at).where('fecha', end.op, end.at).execute();

    expect(sent).toHaveLength(1);
    expect(sent[0]!.map((p) => [p.type, p.scale])).toEqual([
      ['DateTime2', 7],
      ['DateTime2', 7],
    ]);
    // The window is [.001, .002): one millisecond wide, as on PostgreSQL, not [.000, .000).
    const [from, to] = sent[0]!.map((p) => (p.value as Date).getTime());
    expect(from).toBe(Date.parse('2026-01-10T21:30:00.001Z'));
    expect(to! - from!).toBe(1);
  });
});

describe('date filter bounds at the end of year 9999', () => {
  it.each([
    ['9999-12-31', 'end'],
    ['9999-12-31T23:59:59.999', 'end'],
    ['9999-12-31T23:59-12:00', 'start'],
    ['9999-12-31T23:59-12:00', 'end'],
  ] as const)('%s as the %s: a datetime2 tedious accepts, not a parameter it refuses', async (value, side) => {
    sent.length = 0;
    const bound = dateFilterBound(value, side);
    await pos.db.selectFrom('cheques').select('folio').where('fecha', bound.op, bound.at).execute();
    const [parameter] = sent[0]!;
    // What tedious checks before sending (Request.validateParameters): a year past 9999 throws.
    expect(() => (tedious.TYPES.DateTime2 as unknown as { validate: (v: unknown) => unknown }).validate(parameter!.value)).not.toThrow();
    // Nothing SR's datetime columns hold (up to 9999-12-31 23:59:59.997) is left out.
    if (side === 'end') expect((parameter!.value as Date).getTime()).toBeGreaterThan(new Date(9999, 11, 31, 23, 59, 59, 997).getTime());
  });
});
