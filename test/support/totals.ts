/**
 * What the totals tests share: a reference arithmetic wider than the module's, generators of
 * accounts within the contract's ranges, and the fixed lines of the worked example.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { Decimal } from 'decimal.js';
import { round2, type Clasificacion, type PercentResult, type TotalsLine } from '../../src/pos/totals.js';

// An independent, wider configuration for reference computations, so the tests do not merely
// repeat the module's arithmetic.
export const Ref = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });

export const RUNS = { numRuns: 300 };

// ---------------------------------------------------------------- generators

/** Integer in [min, max] divided by 10^places, as the string a pg driver returns. */
export const scaled = (min: number, max: number, places: number): fc.Arbitrary<string> =>
  fc.integer({ min, max }).map((n) => new Ref(n).div(new Ref(10).pow(places)).toFixed(places));

const lineDiscount = fc.oneof(fc.constant('0'), fc.constant('100'), scaled(0, 1_000_000, 4));
export const generalPercent = fc.oneof(fc.constant('0'), fc.constant('100'), scaled(0, 1_000_000, 4));
export const smallTax = fc.oneof({ arbitrary: fc.constant('0'), weight: 3 }, { arbitrary: scaled(1, 800, 2), weight: 1 });

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
export const account = fc.array(lineArb(50_000, 500_000), { minLength: 1, maxLength: 12 });
/** Everyday tickets: pre-tax subtotal below 10 000, where a 4-decimal g is finer than a cent. */
export const typicalAccount = fc.array(lineArb(5_000, 15_000), { minLength: 1, maxLength: 12 });
export const undiscountedAccount = account.map((ls) => ls.map((l) => ({ ...l, descuento: '0' })));

// ---------------------------------------------------------------- helpers

export const dec = (n: number | string): Decimal => new Ref(String(n));

export function expectWithin(actual: Decimal.Value, expected: Decimal.Value, tolerance: Decimal.Value, what = ''): void {
  const diff = new Ref(actual).minus(expected).abs();
  expect(diff.lte(tolerance), `${what}: |${String(actual)} − ${String(expected)}| = ${diff.toString()} > ${String(tolerance)}`).toBe(true);
}

export function percentOf(r: PercentResult): Decimal {
  if (!r.ok) throw new Error(`expected a percentage, got ${r.reason}`);
  return r.percent;
}

/** A 2-decimal amount between 0 and `max`, picked by a fraction in millionths. */
export function amountWithin(max: Decimal, millionths: number): Decimal {
  return round2(max).times(millionths).div(1_000_000).toDecimalPlaces(2, Decimal.ROUND_DOWN);
}

export function refK(l: TotalsLine): Decimal {
  return new Ref(1).plus(new Ref(l.impuesto1).plus(l.impuesto2).plus(l.impuesto3).div(100));
}

export const API_KEYS = [
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

export const HEADER_KEYS = [
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

export const SIX_DECIMAL_COLUMNS = new Set(['totalimpuestod1', 'totalimpuestod2', 'totalimpuestod3']);

export const bottle: TotalsLine = {
  cantidad: '1',
  precio: '1500.00',
  impuesto1: '16',
  impuesto2: '0',
  impuesto3: '0',
  descuento: '0',
  clasificacion: 1,
};

export const line = (over: Partial<TotalsLine>): TotalsLine => ({ ...bottle, ...over });

// ---------------------------------------------------------------- examples
