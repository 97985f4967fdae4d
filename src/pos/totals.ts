// Account totals (docs/totals.md): one pure function recomputes everything from the lines
// and the general percentage, so no operation accumulates rounding and applying 0 restores the
// totals exactly. Money never goes through JavaScript numbers until the API's final formatting.
import { Decimal } from 'decimal.js';
import type { z } from 'zod';
import type { totales } from '../protocol/operations/orders.js';
import type { Tempcheques } from './schema-softrestaurant.js';

// 40 significant digits keep the divisions by (1 + T/100) far below a cent on any account,
// and a shared clone keeps the global Decimal configuration untouched for other libraries.
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });

/** `grupos.clasificacion`: 1 beverages (bebidas), 2 food (alimentos), 3 other (otros). */
export type Clasificacion = 1 | 2 | 3;

/** One `tempcheqdet` line; drivers return numeric columns as strings or numbers. */
export interface TotalsLine {
  cantidad: Decimal.Value;
  /** Unit price WITH tax. */
  precio: Decimal.Value;
  impuesto1: Decimal.Value;
  impuesto2: Decimal.Value;
  impuesto3: Decimal.Value;
  /** Line discount percentage, 0..100. */
  descuento: Decimal.Value;
  clasificacion: Clasificacion;
}

/** Per-classification sums, pre-tax, full precision. */
export interface ClassTotals {
  /** Σ gross. */
  sinDescuentos: Decimal;
  /** Σ final: after the line's own discount and the general one. */
  final: Decimal;
  /** Product discounts of lines with d < 100, plus the general share when g < 100. */
  descuento: Decimal;
  /** Courtesies (lines with d = 100), plus the general share when g = 100. */
  cortesia: Decimal;
}

/**
 * Everything docs/totals.md defines, at full precision. Only `total` and `subtotalConDescuento` are
 * defined on rounded figures (they are what the customer pays and what the ticket shows);
 * every other value is rounded when it leaves through `totalsToApi` / `totalsToHeaderColumns`.
 */
export interface AccountTotals {
  /** g, the general discount percentage. */
  descuento: Decimal;
  /** Σ gross. */
  totalSinDescuento: Decimal;
  /** Σ grossInc. */
  totalSinDescuentoImp: Decimal;
  /** Σ net: pre-tax, after product discounts, before the general discount (base `subtotal`). */
  subtotal: Decimal;
  /** Σ netInc (base `total` of a general importe). */
  subtotalImp: Decimal;
  /** Σ final: pre-tax, after every discount. */
  subtotalFinal: Decimal;
  /** Σ finalInc, unrounded. */
  totalFinalImp: Decimal;
  /** Σ (net − final). */
  importeGeneral: Decimal;
  /** The general amount when g < 100, else 0. */
  descuentoImporte: Decimal;
  /** Unrounded Σ tax_j (`totalimpuestod1..3`). */
  impuestos: readonly [Decimal, Decimal, Decimal];
  /** Σ (gross − net) over lines with d < 100. */
  totalDescuentos: Decimal;
  /** Σ (gross − net) over lines with d = 100, plus the general amount when g = 100. */
  totalCortesias: Decimal;
  /** totalDescuentos + descuentoImporte + totalCortesias. */
  totalDescuentoYCortesia: Decimal;
  /** Σ q. */
  totalArticulos: Decimal;
  bebidas: ClassTotals;
  alimentos: ClassTotals;
  otros: ClassTotals;
  /** round2(Σ finalInc). */
  total: Decimal;
  /** total − (round2 tax1 + round2 tax2 + round2 tax3), so the ticket adds up to the cent. */
  subtotalConDescuento: Decimal;
}

const ZERO = new Dec(0);
const ONE = new Dec(1);
const HUNDRED = new Dec(100);

export function round2(d: Decimal): Decimal {
  return d.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

function kFactor(i1: Decimal.Value, i2: Decimal.Value, i3: Decimal.Value): Decimal {
  return ONE.plus(new Dec(i1).plus(i2).plus(i3).div(HUNDRED));
}

/** `preciosinimpuestos` as SR stores it: p / (1 + T/100) with 4 decimals. */
export function precioSinImpuestos(precio: Decimal.Value, i1: Decimal.Value, i2: Decimal.Value, i3: Decimal.Value): Decimal {
  return new Dec(precio).div(kFactor(i1, i2, i3)).toDecimalPlaces(4, Decimal.ROUND_HALF_UP);
}

function emptyClass(): ClassTotals {
  return { sinDescuentos: ZERO, final: ZERO, descuento: ZERO, cortesia: ZERO };
}

export function computeTotals(lines: readonly TotalsLine[], generalDiscount: Decimal.Value): AccountTotals {
  const g = new Dec(generalDiscount);
  const generalIsCourtesy = g.gte(HUNDRED);
  const gFactor = ONE.minus(g.div(HUNDRED));
  const classes: Record<Clasificacion, ClassTotals> = { 1: emptyClass(), 2: emptyClass(), 3: emptyClass() };
  let gross = ZERO,
    grossInc = ZERO,
    net = ZERO,
    netInc = ZERO,
    fin = ZERO,
    finInc = ZERO;
  let productDiscounts = ZERO,
    courtesies = ZERO,
    articulos = ZERO;
  let tax1 = ZERO,
    tax2 = ZERO,
    tax3 = ZERO;

  for (const line of lines) {
    const c = classes[line.clasificacion];
    if (c === undefined) throw new RangeError(`clasificacion must be 1, 2 or 3, got ${String(line.clasificacion)}`);
    const q = new Dec(line.cantidad);
    const d = new Dec(line.descuento);
    const k = kFactor(line.impuesto1, line.impuesto2, line.impuesto3);
    const lGrossInc = q.times(line.precio);
    const lNetInc = lGrossInc.times(ONE.minus(d.div(HUNDRED)));
    const lFinalInc = lNetInc.times(gFactor);
    const lGross = lGrossInc.div(k);
    const lNet = lNetInc.div(k);
    const lFinal = lFinalInc.div(k);
    const lineIsCourtesy = d.gte(HUNDRED);
    const lineAmount = lGross.minus(lNet);
    const generalShare = lNet.minus(lFinal);

    gross = gross.plus(lGross);
    grossInc = grossInc.plus(lGrossInc);
    net = net.plus(lNet);
    netInc = netInc.plus(lNetInc);
    fin = fin.plus(lFinal);
    finInc = finInc.plus(lFinalInc);
    articulos = articulos.plus(q);
    tax1 = tax1.plus(lFinal.times(line.impuesto1).div(HUNDRED));
    tax2 = tax2.plus(lFinal.times(line.impuesto2).div(HUNDRED));
    tax3 = tax3.plus(lFinal.times(line.impuesto3).div(HUNDRED));
    if (lineIsCourtesy) courtesies = courtesies.plus(lineAmount);
    else productDiscounts = productDiscounts.plus(lineAmount);

    c.sinDescuentos = c.sinDescuentos.plus(lGross);
    c.final = c.final.plus(lFinal);
    // The general discount is prorated line by line, so each classification carries its share.
    const lineCourtesy = (lineIsCourtesy ? lineAmount : ZERO).plus(generalIsCourtesy ? generalShare : ZERO);
    const lineDiscount = (lineIsCourtesy ? ZERO : lineAmount).plus(generalIsCourtesy ? ZERO : generalShare);
    c.cortesia = c.cortesia.plus(lineCourtesy);
    c.descuento = c.descuento.plus(lineDiscount);
  }

  const importeGeneral = net.minus(fin);
  const descuentoImporte = generalIsCourtesy ? ZERO : importeGeneral;
  const totalCortesias = generalIsCourtesy ? courtesies.plus(importeGeneral) : courtesies;
  const total = round2(finInc);
  return {
    descuento: g,
    totalSinDescuento: gross,
    totalSinDescuentoImp: grossInc,
    subtotal: net,
    subtotalImp: netInc,
    subtotalFinal: fin,
    totalFinalImp: finInc,
    importeGeneral,
    descuentoImporte,
    impuestos: [tax1, tax2, tax3],
    totalDescuentos: productDiscounts,
    totalCortesias,
    totalDescuentoYCortesia: productDiscounts.plus(descuentoImporte).plus(totalCortesias),
    totalArticulos: articulos,
    bebidas: classes[1],
    alimentos: classes[2],
    otros: classes[3],
    total,
    subtotalConDescuento: total.minus(round2(tax1).plus(round2(tax2)).plus(round2(tax3))),
  };
}

/** The API's `totales` object, as its schema says. */
export type ApiTotales = z.output<typeof totales>;

function fixed(d: Decimal, places: number): string {
  return d.toFixed(places, Decimal.ROUND_HALF_UP);
}

const money = (d: Decimal): string => fixed(d, 2);
const num = (d: Decimal, places = 2): number => Number(fixed(d, places));

export function totalsToApi(t: AccountTotals): ApiTotales {
  return {
    subtotal: num(t.subtotal),
    descuento: num(t.descuento, 4),
    descuentoImporte: num(t.descuentoImporte),
    subtotalConDescuento: num(t.subtotalConDescuento),
    totalImpuesto1: num(t.impuestos[0]),
    totalImpuesto2: num(t.impuestos[1]),
    totalImpuesto3: num(t.impuestos[2]),
    total: num(t.total),
    totalAlimentos: num(t.alimentos.final),
    totalBebidas: num(t.bebidas.final),
    totalOtros: num(t.otros.final),
    totalDescuentos: num(t.totalDescuentos),
    totalCortesias: num(t.totalCortesias),
    totalDescuentoYCortesia: num(t.totalDescuentoYCortesia),
    totalSinDescuento: num(t.totalSinDescuento),
    totalArticulos: num(t.totalArticulos, 6),
  };
}

export type HeaderTotalsColumn =
  | 'subtotal'
  | 'subtotalsinimpuestos'
  | 'total'
  | 'totalimpuesto1'
  | 'totalimpuestod1'
  | 'totalimpuestod2'
  | 'totalimpuestod3'
  | 'descuento'
  | 'descuentoimporte'
  | 'subtotalcondescuento'
  | 'totalsindescuento'
  | 'totalsindescuentoimp'
  | 'totaldescuentos'
  | 'totaldescuentoalimentos'
  | 'totaldescuentobebidas'
  | 'totaldescuentootros'
  | 'totalcortesias'
  | 'totalcortesiaalimentos'
  | 'totalcortesiabebidas'
  | 'totalcortesiaotros'
  | 'totaldescuentoycortesia'
  | 'totalalimentos'
  | 'totalbebidas'
  | 'totalotros'
  | 'totalalimentossindescuentos'
  | 'totalbebidassindescuentos'
  | 'totalotrossindescuentos'
  | 'totalarticulos'
  | 'totalconpropina'
  | 'totalconcargo'
  | 'totalconpropinacargo'
  | 'totalcondonativo'
  | 'totalconpropinacargodonativo';

// Fails to compile if a name above is not a real `tempcheques` column.
type AssertColumns<T extends keyof Tempcheques> = T;
export type HeaderTotals = Record<AssertColumns<HeaderTotalsColumn>, string>;

/** Decimal strings for the `tempcheques` money columns. */
export function totalsToHeaderColumns(t: AccountTotals): HeaderTotals {
  const total = money(t.total);
  return {
    subtotal: money(t.subtotal),
    subtotalsinimpuestos: money(t.subtotal),
    total,
    totalimpuesto1: money(t.impuestos[0]),
    // SR keeps the unrounded tax sums (its own trace shows 206.896552 for a 1500.00 bottle).
    totalimpuestod1: fixed(t.impuestos[0], 6),
    totalimpuestod2: fixed(t.impuestos[1], 6),
    totalimpuestod3: fixed(t.impuestos[2], 6),
    descuento: fixed(t.descuento, 4),
    descuentoimporte: money(t.descuentoImporte),
    subtotalcondescuento: money(t.subtotalConDescuento),
    totalsindescuento: money(t.totalSinDescuento),
    totalsindescuentoimp: money(t.totalSinDescuentoImp),
    totaldescuentos: money(t.totalDescuentos),
    totaldescuentoalimentos: money(t.alimentos.descuento),
    totaldescuentobebidas: money(t.bebidas.descuento),
    totaldescuentootros: money(t.otros.descuento),
    totalcortesias: money(t.totalCortesias),
    totalcortesiaalimentos: money(t.alimentos.cortesia),
    totalcortesiabebidas: money(t.bebidas.cortesia),
    totalcortesiaotros: money(t.otros.cortesia),
    totaldescuentoycortesia: money(t.totalDescuentoYCortesia),
    totalalimentos: money(t.alimentos.final),
    totalbebidas: money(t.bebidas.final),
    totalotros: money(t.otros.final),
    totalalimentossindescuentos: money(t.alimentos.sinDescuentos),
    totalbebidassindescuentos: money(t.bebidas.sinDescuentos),
    totalotrossindescuentos: money(t.otros.sinDescuentos),
    totalarticulos: money(t.totalArticulos),
    // The agent handles no tip or service charge, so these equal the total. The donation
    // totals SR writes 0 without a donation (order-lifecycle rows 123, 461, 585).
    totalconpropina: total,
    totalconcargo: total,
    totalconpropinacargo: total,
    totalcondonativo: money(new Dec(0)),
    totalconpropinacargodonativo: money(new Dec(0)),
  };
}

export type PercentResult = { ok: true; percent: Decimal } | { ok: false; reason: 'exceeds_base' | 'out_of_range' };

export interface DiscountRequest {
  modo: 'porcentaje' | 'importe';
  base?: 'subtotal' | 'total';
  valor: Decimal.Value;
}

const OUT_OF_RANGE: PercentResult = { ok: false, reason: 'out_of_range' };
const EXCEEDS_BASE: PercentResult = { ok: false, reason: 'exceeds_base' };

function parse(v: Decimal.Value): Decimal | null {
  try {
    const d = new Dec(v);
    return d.isFinite() ? d : null;
  } catch {
    return null;
  }
}

function fromPercent(valor: Decimal, scale: number): PercentResult {
  if (valor.lt(0) || valor.gt(HUNDRED)) return OUT_OF_RANGE;
  return { ok: true, percent: valor.toDecimalPlaces(scale, Decimal.ROUND_HALF_UP) };
}

/**
 * `exact` is the unrounded base; `shown` is the figure a client sees. Sending the shown figure
 * must mean "all of it" (exactly 100, a courtesy) even when it differs from the exact base in a
 * digit the client never saw. `ratio` computes valor / exact × 100 with a single division, so a
 * percentage that ends in an exact half rounds as it should.
 */
function fromAmount(valor: Decimal, exact: Decimal, shown: Decimal, limit: Decimal, ratio: (valor: Decimal) => Decimal, scale: number): PercentResult {
  if (valor.lt(0)) return OUT_OF_RANGE;
  if (valor.isZero()) return { ok: true, percent: new Dec(0) };
  if (valor.gt(limit) || exact.isZero()) return EXCEEDS_BASE;
  if (valor.eq(shown)) return { ok: true, percent: new Dec(100) };
  const percent = ratio(valor).toDecimalPlaces(scale, Decimal.ROUND_HALF_UP);
  return { ok: true, percent: Dec.min(percent, HUNDRED) };
}

/** General discount request → g. Base `subtotal` = Σ net, base `total` = Σ netInc (unrounded). */
export function generalDiscountPercent(req: DiscountRequest, lines: readonly TotalsLine[], scale = 4): PercentResult {
  const valor = parse(req.valor);
  if (valor === null) return OUT_OF_RANGE;
  if (req.modo === 'porcentaje') return fromPercent(valor, scale);
  const t = computeTotals(lines, 0);
  const exact = req.base === 'total' ? t.subtotalImp : t.subtotal;
  const shown = round2(exact);
  // "Above the base" means above both the exact base and the cents the client was shown.
  return fromAmount(valor, exact, shown, Dec.max(exact, shown), (v) => v.times(HUNDRED).div(exact), scale);
}

/** Line discount request (valor PER UNIT) → d. `scale` is 2 where `tempcheqdet.descuento` is numeric(6,2). */
export function lineDiscountPercent(
  req: DiscountRequest,
  line: Pick<TotalsLine, 'precio' | 'impuesto1' | 'impuesto2' | 'impuesto3'>,
  scale = 4,
): PercentResult {
  const valor = parse(req.valor);
  if (valor === null) return OUT_OF_RANGE;
  if (req.modo === 'porcentaje') return fromPercent(valor, scale);
  const p = new Dec(line.precio);
  const k = req.base === 'total' ? ONE : kFactor(line.impuesto1, line.impuesto2, line.impuesto3);
  const exact = p.div(k);
  const shown = exact.toDecimalPlaces(4, Decimal.ROUND_HALF_UP);
  // An amount above the unit price at 4 decimals is refused (docs/totals.md).
  return fromAmount(valor, exact, shown, shown, (v) => v.times(HUNDRED).times(k).div(p), scale);
}
