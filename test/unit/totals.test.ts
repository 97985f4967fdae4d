/** computeTotals: the worked example, fixed cases and invariants. Discount percentages: totals-discounts.test.ts. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { Dec, computeTotals, round2, totalsToApi, totalsToHeaderColumns, type Clasificacion } from '../../src/pos/totals.js';
import {
  API_KEYS,
  HEADER_KEYS,
  RUNS,
  Ref,
  SIX_DECIMAL_COLUMNS,
  account,
  bottle,
  dec,
  expectWithin,
  generalPercent,
  line,
  refK,
  undiscountedAccount,
} from '../support/totals.js';

describe('computeTotals: worked example and fixed cases', () => {
  it('reproduces the SR 11 trace: one bottle at 1500.00 with IVA 16 %', () => {
    const t = computeTotals([bottle], 0);
    const api = totalsToApi(t);
    expect(api.subtotal).toBe(1293.1);
    expect(api.totalImpuesto1).toBe(206.9);
    expect(api.total).toBe(1500);
    expect(api.totalBebidas).toBe(1293.1);
    expect(api.totalAlimentos).toBe(0);
    expect(api.subtotalConDescuento).toBe(1293.1);
    const h = totalsToHeaderColumns(t);
    expect(h.totalimpuestod1).toBe('206.896552');
    expect(h.total).toBe('1500.00');
    expect(h.subtotal).toBe('1293.10');
    expect(h.subtotalsinimpuestos).toBe('1293.10');
    expect(h.totalbebidas).toBe('1293.10');
    expect(h.totalbebidassindescuentos).toBe('1293.10');
    expect(h.totalsindescuentoimp).toBe('1500.00');
  });

  it('returns exactly the API keys and the tempcheques columns, with the promised decimals', () => {
    const t = computeTotals([bottle, line({ cantidad: '2.125', clasificacion: 2, descuento: '12.5' })], '7.25');
    const api = totalsToApi(t);
    expect(Object.keys(api).sort()).toEqual([...API_KEYS].sort());
    for (const v of Object.values(api)) expect(typeof v).toBe('number');
    const h = totalsToHeaderColumns(t);
    expect(Object.keys(h).sort()).toEqual([...HEADER_KEYS].sort());
    for (const [k, v] of Object.entries(h)) {
      const places = SIX_DECIMAL_COLUMNS.has(k) ? 6 : k === 'descuento' ? 4 : 2;
      expect(v, k).toMatch(new RegExp(`^\\d+\\.\\d{${places}}$`));
    }
    for (const k of ['totalconpropina', 'totalconcargo', 'totalconpropinacargo'] as const) {
      expect(h[k]).toBe(h.total);
    }
    // With no donation SR writes 0 to the donation totals (order-lifecycle rows 123, 461, 585).
    expect([h.totalcondonativo, h.totalconpropinacargodonativo]).toEqual(['0.00', '0.00']);
  });

  it('keeps g at 4 decimals and Σ cantidad at 6 in the API, 2 in numeric(11,2)', () => {
    const lines = [line({ cantidad: '1.5' }), line({ cantidad: '2.125' }), line({ cantidad: '0.0005' })];
    const t = computeTotals(lines, '12.34565');
    expect(totalsToApi(t).descuento).toBe(12.3457);
    expect(totalsToHeaderColumns(t).descuento).toBe('12.3457');
    expect(totalsToApi(t).totalArticulos).toBe(3.6255);
    expect(totalsToHeaderColumns(t).totalarticulos).toBe('3.63');
  });

  it('gives zeros for an empty account', () => {
    const t = computeTotals([], 0);
    for (const v of Object.values(totalsToApi(t))) expect(Object.is(v, 0)).toBe(true);
    for (const v of Object.values(totalsToHeaderColumns(t))) expect(v).toMatch(/^0\.0+$/);
  });

  it('rounds half up, only at the end', () => {
    // 0.25 at 50 % is 0.125: half up gives 0.13 where half even would give 0.12.
    const half = line({ precio: '0.25', impuesto1: '0', descuento: '50' });
    expect(totalsToHeaderColumns(computeTotals([half], 0)).total).toBe('0.13');
    // Three lines of 0.125 are 0.375 → 0.38; rounding each line first would give 0.39.
    expect(totalsToHeaderColumns(computeTotals([half, half, half], 0)).total).toBe('0.38');
    expect(round2(new Dec('2.345')).toFixed()).toBe('2.35');
    expect(round2(new Dec('2.335')).toFixed()).toBe('2.34');
  });

  it('counts a line with d = 100 as courtesy, not as discount, in its classification', () => {
    const lines = [bottle, line({ precio: '116.00', clasificacion: 2, descuento: '100' }), line({ precio: '232.00', clasificacion: 3, descuento: '50' })];
    const t = computeTotals(lines, 0);
    const api = totalsToApi(t);
    expect(api.totalCortesias).toBe(100);
    expect(api.totalDescuentos).toBe(100);
    expect(api.totalDescuentoYCortesia).toBe(200);
    expect(api.total).toBe(1616);
    const h = totalsToHeaderColumns(t);
    expect(h.totalcortesiaalimentos).toBe('100.00');
    expect(h.totaldescuentoalimentos).toBe('0.00');
    expect(h.totaldescuentootros).toBe('100.00');
    expect(h.totalcortesiaotros).toBe('0.00');
    expect(h.totalalimentos).toBe('0.00');
    expect(h.totalalimentossindescuentos).toBe('100.00');
  });

  it('with g = 100 puts the general amount in totalCortesias and leaves descuentoImporte at 0', () => {
    const lines = [bottle, line({ precio: '232.00', clasificacion: 2, descuento: '50' })];
    const api = totalsToApi(computeTotals(lines, 100));
    expect(api.total).toBe(0);
    expect(api.descuentoImporte).toBe(0);
    expect(api.totalDescuentos).toBe(100);
    expect(api.totalCortesias).toBe(1393.1);
    expect(api.totalDescuentoYCortesia).toBe(1493.1);
    const h = totalsToHeaderColumns(computeTotals(lines, 100));
    expect(h.totalcortesiabebidas).toBe('1293.10');
    expect(h.totalcortesiaalimentos).toBe('100.00');
    expect(h.totaldescuentoalimentos).toBe('100.00');
  });

  it('prorates a general discount over food, beverages and other', () => {
    const lines = [line({ precio: '116.00', clasificacion: 1 }), line({ precio: '348.00', clasificacion: 2 })];
    const h = totalsToHeaderColumns(computeTotals(lines, 10));
    expect(h.descuentoimporte).toBe('40.00');
    expect(h.totaldescuentobebidas).toBe('10.00');
    expect(h.totaldescuentoalimentos).toBe('30.00');
    expect(h.totalbebidas).toBe('90.00');
    expect(h.totalalimentos).toBe('270.00');
    expect(h.total).toBe('417.60');
  });

  it('rejects an unknown classification', () => {
    expect(() => computeTotals([line({ clasificacion: 4 as Clasificacion })], 0)).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------- invariants

describe('computeTotals: invariants (property-based)', () => {
  it('total = subtotalConDescuento + totalImpuesto1 + totalImpuesto2 + totalImpuesto3 exactly', () => {
    fc.assert(
      fc.property(account, generalPercent, (lines, g) => {
        const t = computeTotals(lines, g);
        const api = totalsToApi(t);
        const sum = dec(api.subtotalConDescuento).plus(dec(api.totalImpuesto1)).plus(dec(api.totalImpuesto2)).plus(dec(api.totalImpuesto3));
        expect(sum.eq(dec(api.total))).toBe(true);
        const h = totalsToHeaderColumns(t);
        // The header has no totalimpuesto2/3 columns: the exact identity lives in the API.
        expect(dec(h.subtotalcondescuento).plus(api.totalImpuesto1).plus(api.totalImpuesto2).plus(api.totalImpuesto3).eq(h.total)).toBe(true);
      }),
      RUNS,
    );
  });

  it('total is round2 of Σ q·p·(1 − d/100)·(1 − g/100), computed independently', () => {
    fc.assert(
      fc.property(account, generalPercent, (lines, g) => {
        const exact = lines
          .reduce((s, l) => s.plus(new Ref(l.cantidad).times(l.precio).times(new Ref(1).minus(new Ref(l.descuento).div(100)))), new Ref(0))
          .times(new Ref(1).minus(new Ref(g).div(100)));
        const expected = exact.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
        expect(totalsToHeaderColumns(computeTotals(lines, g)).total).toBe(expected.toFixed(2));
      }),
      RUNS,
    );
  });

  it('without discounts, total is exactly Σ q×p rounded and nothing counts as discount', () => {
    fc.assert(
      fc.property(undiscountedAccount, (lines) => {
        const t = computeTotals(lines, 0);
        const grossInc = lines.reduce((s, l) => s.plus(new Ref(l.cantidad).times(l.precio)), new Ref(0));
        expect(t.total.eq(grossInc.toDecimalPlaces(2, Decimal.ROUND_HALF_UP))).toBe(true);
        const api = totalsToApi(t);
        expect(api.totalDescuentoYCortesia).toBe(0);
        expect(api.subtotal).toBe(api.totalSinDescuento);
        expect(t.subtotalFinal.eq(t.totalSinDescuento)).toBe(true);
      }),
      RUNS,
    );
  });

  it('courtesy lines (d = 100) count in totalCortesias, other discounted lines in totalDescuentos', () => {
    fc.assert(
      fc.property(
        account,
        generalPercent.filter((g) => new Ref(g).lt(100)),
        (lines, g) => {
          const t = computeTotals(lines, g);
          let courtesy = new Ref(0);
          let discount = new Ref(0);
          for (const l of lines) {
            const gross = new Ref(l.cantidad).times(l.precio).div(refK(l));
            if (new Ref(l.descuento).eq(100)) courtesy = courtesy.plus(gross);
            else discount = discount.plus(gross.times(l.descuento).div(100));
          }
          expectWithin(t.totalCortesias, courtesy, '1e-25', 'totalCortesias');
          expectWithin(t.totalDescuentos, discount, '1e-25', 'totalDescuentos');
          expect(t.descuentoImporte.eq(t.importeGeneral)).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('g = 100 moves the whole general amount into totalCortesias and total to 0', () => {
    fc.assert(
      fc.property(account, (lines) => {
        const before = computeTotals(lines, 0);
        const t = computeTotals(lines, 100);
        expect(t.total.isZero()).toBe(true);
        expect(t.descuentoImporte.isZero()).toBe(true);
        expect(t.importeGeneral.eq(t.subtotal)).toBe(true);
        expectWithin(t.totalCortesias, before.totalCortesias.plus(before.subtotal), '1e-25', 'totalCortesias');
        expect(t.totalDescuentos.eq(before.totalDescuentos)).toBe(true);
        expect(totalsToApi(t).descuentoImporte).toBe(0);
      }),
      RUNS,
    );
  });

  it('discounts and courtesies account for everything between totalSinDescuento and the final subtotal', () => {
    fc.assert(
      fc.property(account, generalPercent, (lines, g) => {
        const t = computeTotals(lines, g);
        expectWithin(t.totalSinDescuento.minus(t.totalDescuentoYCortesia), t.subtotalFinal, '1e-25', 'header');
        const classes = [t.alimentos, t.bebidas, t.otros];
        for (const c of classes) expectWithin(c.sinDescuentos.minus(c.descuento).minus(c.cortesia), c.final, '1e-25', 'class');
        const classDiscounts = classes.reduce((s, c) => s.plus(c.descuento), new Ref(0));
        const classCourtesies = classes.reduce((s, c) => s.plus(c.cortesia), new Ref(0));
        expectWithin(classDiscounts, t.totalDescuentos.plus(t.descuentoImporte), '1e-25', 'Σ class discounts');
        expectWithin(classCourtesies, t.totalCortesias, '1e-25', 'Σ class courtesies');
        const api = totalsToApi(t);
        // Five independently rounded figures: at most 2 cents apart.
        expectWithin(
          dec(api.totalSinDescuento).minus(dec(api.totalDescuentoYCortesia)),
          dec(api.totalAlimentos).plus(dec(api.totalBebidas)).plus(dec(api.totalOtros)),
          '0.02',
          'rounded',
        );
      }),
      RUNS,
    );
  });

  it('the food / beverage / other split sums to the subtotal after discounts within rounding', () => {
    fc.assert(
      fc.property(account, generalPercent, (lines, g) => {
        const t = computeTotals(lines, g);
        const api = totalsToApi(t);
        const split = dec(api.totalAlimentos).plus(dec(api.totalBebidas)).plus(dec(api.totalOtros));
        expectWithin(t.alimentos.final.plus(t.bebidas.final).plus(t.otros.final), t.subtotalFinal, '1e-25', 'exact split');
        // Three rounded parts against the rounded whole: under 2 cents, so at most 1.
        expectWithin(split, round2(t.subtotalFinal), '0.01', 'split vs Σ final');
        // subtotalConDescuento itself carries up to four roundings (total and three taxes).
        expectWithin(split, dec(api.subtotalConDescuento), '0.03', 'split vs subtotalConDescuento');
      }),
      RUNS,
    );
  });

  it('API numbers and header strings agree', () => {
    fc.assert(
      fc.property(account, generalPercent, (lines, g) => {
        const t = computeTotals(lines, g);
        const api = totalsToApi(t);
        const h = totalsToHeaderColumns(t);
        const pairs: [number, string][] = [
          [api.subtotal, h.subtotal],
          [api.total, h.total],
          [api.totalImpuesto1, h.totalimpuesto1],
          [api.descuento, h.descuento],
          [api.descuentoImporte, h.descuentoimporte],
          [api.subtotalConDescuento, h.subtotalcondescuento],
          [api.totalSinDescuento, h.totalsindescuento],
          [api.totalDescuentos, h.totaldescuentos],
          [api.totalCortesias, h.totalcortesias],
          [api.totalDescuentoYCortesia, h.totaldescuentoycortesia],
          [api.totalAlimentos, h.totalalimentos],
          [api.totalBebidas, h.totalbebidas],
          [api.totalOtros, h.totalotros],
        ];
        for (const [n, s] of pairs) expect(n).toBe(Number(s));
        for (const j of [0, 1, 2] as const) {
          expectWithin(h[`totalimpuestod${j + 1}` as 'totalimpuestod1'], t.impuestos[j], '0.0000005', 'totalimpuestod');
        }
      }),
      RUNS,
    );
  });

  it('reads strings, numbers and Decimals alike', () => {
    fc.assert(
      fc.property(account, generalPercent, (lines, g) => {
        const asNumbers = lines.map((l) => ({
          ...l,
          cantidad: Number(l.cantidad),
          precio: Number(l.precio),
          impuesto1: Number(l.impuesto1),
          impuesto2: Number(l.impuesto2),
          impuesto3: Number(l.impuesto3),
          descuento: Number(l.descuento),
        }));
        const asDecimals = lines.map((l) => ({
          ...l,
          cantidad: new Decimal(l.cantidad),
          precio: new Dec(l.precio),
          impuesto1: new Dec(l.impuesto1),
          impuesto2: new Dec(l.impuesto2),
          impuesto3: new Dec(l.impuesto3),
          descuento: new Dec(l.descuento),
        }));
        const expected = totalsToHeaderColumns(computeTotals(lines, g));
        expect(totalsToHeaderColumns(computeTotals(asNumbers, Number(g)))).toEqual(expected);
        expect(totalsToHeaderColumns(computeTotals(asDecimals, new Dec(g)))).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it('adding or cancelling lines keeps g and re-applies it line by line to what remains', () => {
    fc.assert(
      fc.property(account, account, generalPercent, (kept, other, g) => {
        const all = computeTotals([...kept, ...other], g);
        const a = computeTotals(kept, g);
        const b = computeTotals(other, g);
        expect(all.descuento.eq(g)).toBe(true);
        expectWithin(all.importeGeneral, all.subtotal.times(g).div(100), '1e-25', 'general amount');
        expectWithin(a.importeGeneral, a.subtotal.times(g).div(100), '1e-25', 'general amount after cancelling');
        const fields = ['subtotal', 'subtotalFinal', 'totalFinalImp', 'importeGeneral', 'totalDescuentos', 'totalCortesias', 'totalSinDescuento'] as const;
        for (const f of fields) expectWithin(all[f], a[f].plus(b[f]), '1e-25', f);
        for (const j of [0, 1, 2] as const) expectWithin(all.impuestos[j], a.impuestos[j].plus(b.impuestos[j]), '1e-25', 'tax');
      }),
      { numRuns: 200 },
    );
  });
});
