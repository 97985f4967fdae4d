import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PgShapedRequest, pgShapedRow } from '../../src/pos/db.js';

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

  it('reshapes the row before Kysely’s row listener sees it', () => {
    const request = new PgShapedRequest('select 1', () => undefined);
    const seen: unknown[] = [];
    request.on('row', (columns: Array<{ value: unknown }>) => seen.push(...columns.map((c) => c.value)));
    request.emit('row', [column('DecimalN', 89, 4), column('BigInt', '12')]);
    expect(seen).toEqual(['89.0000', 12]);
  });
});
