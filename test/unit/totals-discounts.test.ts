/** generalDiscountPercent and lineDiscountPercent: the discount a client asks for, as SR stores it. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import {
  Dec,
  computeTotals,
  generalDiscountPercent,
  lineDiscountPercent,
  precioSinImpuestos,
  round2,
  totalsToApi,
  totalsToHeaderColumns,
  type AccountTotals,
  type TotalsLine,
} from '../../src/pos/totals.js';
import {
  RUNS,
  Ref,
  account,
  amountWithin,
  bottle,
  expectWithin,
  generalPercent,
  line,
  percentOf,
  refK,
  typicalAccount,
  scaled,
  smallTax,
} from '../support/totals.js';

// ---------------------------------------------------------------- general discount requests

describe('generalDiscountPercent', () => {
  const generalImporte = (base: 'subtotal' | 'total', lines: readonly TotalsLine[], valor: Decimal): AccountTotals =>
    computeTotals(lines, percentOf(generalDiscountPercent({ modo: 'importe', base, valor }, lines)));

  it('an importe on base subtotal lowers the pre-tax subtotal by the amount within 0.01', () => {
    fc.assert(
      fc.property(typicalAccount, fc.integer({ min: 0, max: 1_000_000 }), (lines, f) => {
        const before = computeTotals(lines, 0);
        const valor = amountWithin(before.subtotal, f);
        const after = generalImporte('subtotal', lines, valor);
        expectWithin(round2(before.subtotalFinal).minus(round2(after.subtotalFinal)), valor, '0.01', 'Σ final');
        expectWithin(round2(after.importeGeneral), valor, '0.01', 'general amount');
      }),
      RUNS,
    );
  });

  it('an importe on base total lowers total by the amount within 0.01', () => {
    fc.assert(
      fc.property(typicalAccount, fc.integer({ min: 0, max: 1_000_000 }), (lines, f) => {
        const before = computeTotals(lines, 0);
        const valor = amountWithin(before.subtotalImp, f);
        const after = generalImporte('total', lines, valor);
        expectWithin(before.total.minus(after.total), valor, '0.01', 'total');
      }),
      RUNS,
    );
  });

  it('on any account, the error is 0.01 plus what storing g at 4 decimals costs (base × 5e-7)', () => {
    fc.assert(
      fc.property(account, fc.integer({ min: 0, max: 1_000_000 }), fc.boolean(), (lines, f, onTotal) => {
        const before = computeTotals(lines, 0);
        const base = onTotal ? before.subtotalImp : before.subtotal;
        const valor = amountWithin(base, f);
        const after = generalImporte(onTotal ? 'total' : 'subtotal', lines, valor);
        const drop = onTotal ? before.total.minus(after.total) : round2(before.subtotalFinal).minus(round2(after.subtotalFinal));
        expectWithin(drop, valor, base.times('5e-7').plus('0.01'), 'drop');
      }),
      RUNS,
    );
  });

  it('applying 0 after any sequence of general discounts restores the totals to the cent', () => {
    const request = fc.oneof(
      generalPercent.map((valor) => ({ modo: 'porcentaje' as const, valor, f: 0 })),
      fc.record({
        modo: fc.constant('importe' as const),
        base: fc.constantFrom('subtotal' as const, 'total' as const),
        f: fc.integer({ min: 0, max: 1_000_000 }),
      }),
    );
    fc.assert(
      fc.property(
        account,
        fc.array(request, { minLength: 1, maxLength: 5 }),
        fc.constantFrom('porcentaje' as const, 'importe' as const),
        (lines, seq, zeroModo) => {
          const original = computeTotals(lines, 0);
          let current = original;
          for (const r of seq) {
            const valor = r.modo === 'porcentaje' ? r.valor : amountWithin(r.base === 'total' ? current.subtotalImp : current.subtotal, r.f);
            const g = percentOf(generalDiscountPercent({ ...r, valor }, lines));
            current = computeTotals(lines, g);
            expect(current.descuento.eq(g)).toBe(true);
          }
          const zero = percentOf(generalDiscountPercent({ modo: zeroModo, valor: '0' }, lines));
          expect(zero.isZero()).toBe(true);
          const restored = computeTotals(lines, zero);
          expect(totalsToApi(restored)).toEqual(totalsToApi(original));
          expect(totalsToHeaderColumns(restored)).toEqual(totalsToHeaderColumns(original));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('converts a percentage and rejects one outside 0..100', () => {
    expect(percentOf(generalDiscountPercent({ modo: 'porcentaje', valor: '12.34565' }, [bottle])).toFixed()).toBe('12.3457');
    expect(percentOf(generalDiscountPercent({ modo: 'porcentaje', valor: 100 }, [bottle])).toFixed()).toBe('100');
    expect(generalDiscountPercent({ modo: 'porcentaje', valor: '100.0001' }, [bottle])).toEqual({ ok: false, reason: 'out_of_range' });
    expect(generalDiscountPercent({ modo: 'porcentaje', valor: '-0.0001' }, [bottle])).toEqual({ ok: false, reason: 'out_of_range' });
    expect(generalDiscountPercent({ modo: 'porcentaje', valor: 'abc' }, [bottle])).toEqual({ ok: false, reason: 'out_of_range' });
    expect(generalDiscountPercent({ modo: 'importe', valor: '-1' }, [bottle])).toEqual({ ok: false, reason: 'out_of_range' });
  });

  it('converts an importe against the unrounded base and rejects one above it', () => {
    // 100 of a 1293.103448… subtotal; 150 of a 1500 total.
    expect(percentOf(generalDiscountPercent({ modo: 'importe', valor: 100 }, [bottle])).toFixed()).toBe('7.7333');
    expect(percentOf(generalDiscountPercent({ modo: 'importe', base: 'total', valor: 150 }, [bottle])).toFixed()).toBe('10');
    expect(percentOf(generalDiscountPercent({ modo: 'importe', valor: 100 }, [bottle], 2)).toFixed()).toBe('7.73');
    expect(generalDiscountPercent({ modo: 'importe', valor: '1293.11' }, [bottle])).toEqual({ ok: false, reason: 'exceeds_base' });
    expect(generalDiscountPercent({ modo: 'importe', base: 'total', valor: '1500.01' }, [bottle])).toEqual({ ok: false, reason: 'exceeds_base' });
    expect(percentOf(generalDiscountPercent({ modo: 'importe', base: 'total', valor: '1500' }, [bottle])).toFixed()).toBe('100');
  });

  it('treats the subtotal a client was shown as all of it, even when it rounds above the exact base', () => {
    // 3.00 with IVA 16 %: subtotal 2.586206…, shown as 2.59.
    const lines = [line({ precio: '3.00' })];
    expect(percentOf(generalDiscountPercent({ modo: 'importe', valor: '2.59' }, lines)).toFixed()).toBe('100');
    expect(percentOf(generalDiscountPercent({ modo: 'importe', valor: '2.5862' }, lines)).toFixed()).toBe('99.9997');
    // Between the exact base and the shown one: all of it, never more than 100 %.
    expect(percentOf(generalDiscountPercent({ modo: 'importe', valor: '2.587' }, lines)).toFixed()).toBe('100');
    expect(generalDiscountPercent({ modo: 'importe', valor: '2.60' }, lines)).toEqual({ ok: false, reason: 'exceeds_base' });
    // 1500.00: subtotal 1293.103448…, shown as 1293.10.
    expect(percentOf(generalDiscountPercent({ modo: 'importe', valor: '1293.10' }, [bottle])).toFixed()).toBe('100');
  });

  it('on a zero base, an importe of 0 is 0 % and anything more exceeds the base', () => {
    for (const lines of [[], [line({ descuento: '100' })]]) {
      for (const base of ['subtotal', 'total'] as const) {
        expect(percentOf(generalDiscountPercent({ modo: 'importe', base, valor: 0 }, lines)).isZero()).toBe(true);
        expect(generalDiscountPercent({ modo: 'importe', base, valor: '0.01' }, lines)).toEqual({ ok: false, reason: 'exceeds_base' });
      }
    }
  });

  it('never returns a percentage above 100 or with more decimals than asked', () => {
    fc.assert(
      fc.property(
        account,
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom('subtotal' as const, 'total' as const),
        fc.constantFrom(2, 4),
        (lines, f, base, scale) => {
          const t = computeTotals(lines, 0);
          const valor = amountWithin(base === 'total' ? t.subtotalImp : t.subtotal, f);
          const p = percentOf(generalDiscountPercent({ modo: 'importe', base, valor }, lines, scale));
          expect(p.gte(0) && p.lte(100)).toBe(true);
          expect(p.decimalPlaces()).toBeLessThanOrEqual(scale);
        },
      ),
      RUNS,
    );
  });
});

// ---------------------------------------------------------------- line discount requests

describe('lineDiscountPercent', () => {
  const priced = fc.record({
    precio: scaled(1, 500_000, 2),
    impuesto1: fc.constantFrom('0', '8', '16'),
    impuesto2: smallTax,
    impuesto3: smallTax,
  });

  it('precioSinImpuestos is p / k at 4 decimals', () => {
    expect(precioSinImpuestos('1500.00', 16, 0, 0).toFixed()).toBe('1293.1034');
    expect(precioSinImpuestos('116', '16', '0', '0').toFixed()).toBe('100');
    expect(precioSinImpuestos('10', '8', '3', '5').toFixed()).toBe('8.6207');
  });

  it('an amount equal to the unit price a client sees gives exactly 100; above it exceeds the base', () => {
    fc.assert(
      fc.property(priced, fc.constantFrom(2, 4), (l, scale) => {
        const psi = precioSinImpuestos(l.precio, l.impuesto1, l.impuesto2, l.impuesto3);
        expect(percentOf(lineDiscountPercent({ modo: 'importe', base: 'subtotal', valor: psi }, l, scale)).toFixed()).toBe('100');
        expect(percentOf(lineDiscountPercent({ modo: 'importe', valor: psi.toFixed(4) }, l, scale)).toFixed()).toBe('100');
        expect(percentOf(lineDiscountPercent({ modo: 'importe', base: 'total', valor: l.precio }, l, scale)).toFixed()).toBe('100');
        expect(lineDiscountPercent({ modo: 'importe', base: 'subtotal', valor: psi.plus('0.0001') }, l, scale)).toEqual({ ok: false, reason: 'exceeds_base' });
        expect(lineDiscountPercent({ modo: 'importe', base: 'total', valor: new Dec(l.precio).plus('0.0001') }, l, scale)).toEqual({
          ok: false,
          reason: 'exceeds_base',
        });
      }),
      RUNS,
    );
  });

  it('an amount below the unit price gives d = valor / unit price × 100 rounded, at most 100', () => {
    fc.assert(
      fc.property(priced, fc.integer({ min: 0, max: 1_000_000 }), fc.constantFrom(2, 4), (l, f, scale) => {
        const k = refK({ ...l, cantidad: 1, descuento: 0, clasificacion: 1 });
        const unit = new Ref(l.precio).div(k);
        // Truncated, so it never passes the unit price.
        const valor = unit.times(f).div(1_000_000).toDecimalPlaces(2, Decimal.ROUND_DOWN);
        const d = percentOf(lineDiscountPercent({ modo: 'importe', base: 'subtotal', valor }, l, scale));
        const expected = Ref.min(100, valor.times(100).times(k).div(l.precio).toDecimalPlaces(scale, Decimal.ROUND_HALF_UP));
        expect(d.eq(expected) || (d.eq(100) && valor.eq(unit.toDecimalPlaces(4, Decimal.ROUND_HALF_UP)))).toBe(true);
        expect(d.decimalPlaces()).toBeLessThanOrEqual(scale);
      }),
      RUNS,
    );
  });

  it('is per unit: 150 off a 1500.00 bottle is 10 % whatever the quantity', () => {
    expect(percentOf(lineDiscountPercent({ modo: 'importe', base: 'total', valor: 150 }, bottle)).toFixed()).toBe('10');
    expect(percentOf(lineDiscountPercent({ modo: 'importe', base: 'subtotal', valor: 100 }, bottle)).toFixed()).toBe('7.7333');
    const t = computeTotals([line({ cantidad: 3, descuento: '10' })], 0);
    expect(totalsToApi(t).total).toBe(4050);
  });

  it('rounds half up to the requested scale (numeric(6,2) on older versions)', () => {
    const l = { precio: '800', impuesto1: 0, impuesto2: 0, impuesto3: 0 };
    expect(percentOf(lineDiscountPercent({ modo: 'importe', base: 'total', valor: 1 }, l, 2)).toFixed()).toBe('0.13');
    expect(percentOf(lineDiscountPercent({ modo: 'importe', base: 'total', valor: 1 }, l)).toFixed()).toBe('0.125');
    expect(percentOf(lineDiscountPercent({ modo: 'porcentaje', valor: '12.345' }, l, 2)).toFixed()).toBe('12.35');
    expect(percentOf(lineDiscountPercent({ modo: 'porcentaje', valor: '12.344' }, l, 2)).toFixed()).toBe('12.34');
    expect(percentOf(lineDiscountPercent({ modo: 'porcentaje', valor: '33.33335' }, l)).toFixed()).toBe('33.3334');
    // 0.01 of 0.02 / 1.0001 is exactly 50.005 %: one division keeps the half visible.
    const tiny = { precio: '0.02', impuesto1: 0, impuesto2: '0.01', impuesto3: 0 };
    expect(percentOf(lineDiscountPercent({ modo: 'importe', valor: '0.01' }, tiny, 2)).toFixed()).toBe('50.01');
  });

  it('rejects percentages outside 0..100 and negative amounts; a zero price takes only 0', () => {
    expect(lineDiscountPercent({ modo: 'porcentaje', valor: 101 }, bottle)).toEqual({ ok: false, reason: 'out_of_range' });
    expect(lineDiscountPercent({ modo: 'porcentaje', valor: -1 }, bottle)).toEqual({ ok: false, reason: 'out_of_range' });
    expect(lineDiscountPercent({ modo: 'importe', valor: '-0.01' }, bottle)).toEqual({ ok: false, reason: 'out_of_range' });
    const free = { precio: 0, impuesto1: 16, impuesto2: 0, impuesto3: 0 };
    expect(percentOf(lineDiscountPercent({ modo: 'importe', valor: 0 }, free)).isZero()).toBe(true);
    expect(lineDiscountPercent({ modo: 'importe', valor: '0.01' }, free)).toEqual({ ok: false, reason: 'exceeds_base' });
  });
});
