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
  type Clasificacion,
  type PercentResult,
  type TotalsLine,
} from '../../src/pos/totals.js';

// An independent, wider configuration for reference computations, so the tests do not merely
// repeat the module's arithmetic.
const Ref = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });

const RUNS = { numRuns: 300 };

// ---------------------------------------------------------------- generators

/** Integer in [min, max] divided by 10^places, as the string a pg driver returns. */
const scaled = (min: number, max: number, places: number): fc.Arbitrary<string> =>
  fc.integer({ min, max }).map((n) => new Ref(n).div(new Ref(10).pow(places)).toFixed(places));

const lineDiscount = fc.oneof(fc.constant('0'), fc.constant('100'), scaled(0, 1_000_000, 4));
const generalPercent = fc.oneof(fc.constant('0'), fc.constant('100'), scaled(0, 1_000_000, 4));
const smallTax = fc.oneof({ arbitrary: fc.constant('0'), weight: 3 }, { arbitrary: scaled(1, 800, 2), weight: 1 });

function lineArb(maxCantidadThousandths: number, maxPrecioCents: number): fc.Arbitrary<TotalsLine> {
  return fc.record({
    cantidad: scaled(1, maxCantidadThousandths, 3),
    precio: scaled(1, maxPrecioCents, 2),
    impuesto1: fc.constantFrom('0', '8', '16'),
    impuesto2: smallTax,
    impuesto3: smallTax,
    descuento: lineDiscount,
    clasificacion: fc.constantFrom<Clasificacion>(1, 2, 3),
  });
}

/** The ranges of the contract: cantidad (0, 50] with 3 decimals, precio [0.01, 5000]. */
const account = fc.array(lineArb(50_000, 500_000), { minLength: 1, maxLength: 12 });
/** Everyday tickets: pre-tax subtotal below 10 000, where a 4-decimal g is finer than a cent. */
const typicalAccount = fc.array(lineArb(5_000, 15_000), { minLength: 1, maxLength: 12 });
const undiscountedAccount = account.map((ls) => ls.map((l) => ({ ...l, descuento: '0' })));

// ---------------------------------------------------------------- helpers

const dec = (n: number | string): Decimal => new Ref(String(n));

function expectWithin(actual: Decimal.Value, expected: Decimal.Value, tolerance: Decimal.Value, what = ''): void {
  const diff = new Ref(actual).minus(expected).abs();
  expect(diff.lte(tolerance), `${what}: |${String(actual)} − ${String(expected)}| = ${diff.toString()} > ${String(tolerance)}`).toBe(true);
}

function percentOf(r: PercentResult): Decimal {
  if (!r.ok) throw new Error(`expected a percentage, got ${r.reason}`);
  return r.percent;
}

/** A 2-decimal amount between 0 and `max`, picked by a fraction in millionths. */
function amountWithin(max: Decimal, millionths: number): Decimal {
  return round2(max).times(millionths).div(1_000_000).toDecimalPlaces(2, Decimal.ROUND_DOWN);
}

function refK(l: TotalsLine): Decimal {
  return new Ref(1).plus(new Ref(l.impuesto1).plus(l.impuesto2).plus(l.impuesto3).div(100));
}

const API_KEYS = [
  'subtotal',
  'descuento',
  'descuentoImporte',
  'subtotalConDescuento',
  'totalImpuesto1',
  'totalImpuesto2',
  'totalImpuesto3',
  'total',
  'totalAlimentos',
  'totalBebidas',
  'totalOtros',
  'totalDescuentos',
  'totalCortesias',
  'totalDescuentoYCortesia',
  'totalSinDescuento',
  'totalArticulos',
];

const HEADER_KEYS = [
  'subtotal',
  'subtotalsinimpuestos',
  'total',
  'totalimpuesto1',
  'totalimpuestod1',
  'totalimpuestod2',
  'totalimpuestod3',
  'descuento',
  'descuentoimporte',
  'subtotalcondescuento',
  'totalsindescuento',
  'totalsindescuentoimp',
  'totaldescuentos',
  'totaldescuentoalimentos',
  'totaldescuentobebidas',
  'totaldescuentootros',
  'totalcortesias',
  'totalcortesiaalimentos',
  'totalcortesiabebidas',
  'totalcortesiaotros',
  'totaldescuentoycortesia',
  'totalalimentos',
  'totalbebidas',
  'totalotros',
  'totalalimentossindescuentos',
  'totalbebidassindescuentos',
  'totalotrossindescuentos',
  'totalarticulos',
  'totalconpropina',
  'totalconcargo',
  'totalconpropinacargo',
  'totalcondonativo',
  'totalconpropinacargodonativo',
];

const SIX_DECIMAL_COLUMNS = new Set(['totalimpuestod1', 'totalimpuestod2', 'totalimpuestod3']);

const bottle: TotalsLine = {
  cantidad: '1',
  precio: '1500.00',
  impuesto1: '16',
  impuesto2: '0',
  impuesto3: '0',
  descuento: '0',
  clasificacion: 1,
};

const line = (over: Partial<TotalsLine>): TotalsLine => ({ ...bottle, ...over });

// ---------------------------------------------------------------- examples

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
