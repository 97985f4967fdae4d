/**
 * How the tenders offered for an account settle it, before anything is written: each in its own
 * currency, counted in pesos at its exchange rate as SR counts it (order-lifecycle rows 546,
 * 577-580). Pure, so every rounding rule is tested on its own.
 */
import type { Decimal } from 'decimal.js';
import { PosError } from '../protocol/errors.js';
import { tenderOf, type Tender } from './cash-cut.js';
import { Dec } from './totals.js';
import { collationKey, dec } from './values.js';

export interface PaymentMethod {
  idformadepago: string;
  tipo: number;
  /** Pesos per unit of the method's currency; 1 for pesos. */
  tipodecambio: Decimal;
}

export interface Offered {
  idFormaDePago: string;
  importe: number;
  propina: number;
  referencia: string;
}

/** A payment row as it is stored: amounts in the method's currency, the change already taken off cash. */
export interface SettledTender {
  method: PaymentMethod;
  importe: Decimal;
  propina: Decimal;
  referencia: string;
}

export interface Settlement {
  tenders: SettledTender[];
  /** Pesos handed back. */
  cambio: Decimal;
  /** Pesos by tender bucket, tips included: the header's efectivo, tarjeta, vales, otros. */
  buckets: Record<Tender, Decimal>;
  /** Tips in pesos, and those on cards (propinatarjeta). */
  propina: Decimal;
  propinaTarjeta: Decimal;
}

/**
 * The rate a payment row carries for a method's `formasdepago.tipodecambio`: a rate left at 0
 * would count the payment as nothing in every sum SR makes; SR's own rows carry 1 for pesos
 * (order-lifecycle row 515).
 */
export function paymentRate(tipodecambio: Parameters<typeof dec>[0]): Decimal {
  const rate = dec(tipodecambio);
  return rate.gt(0) ? rate : new Dec(1);
}

const cents = (d: Decimal) => d.toDecimalPlaces(2, Dec.ROUND_HALF_UP);
const pesos = (amount: Decimal, m: PaymentMethod) => amount.times(m.tipodecambio);
const isCash = (m: PaymentMethod) => tenderOf(m.tipo) === 'efectivo';

/**
 * Pesos are paid in cents: half a cent more or less would round away in the sum that settles
 * the account, and the cash cut would then add up the payments a cent apart from the sales. A
 * foreign currency's amount keeps its 4 decimals, settled at its rate as SR rounds it.
 */
function refuseFractionsOfCents(p: Offered, index: number, method: PaymentMethod): void {
  if (!method.tipodecambio.eq(1)) return;
  const errors = (['importe', 'propina'] as const)
    .filter((field) => !new Dec(p[field]).eq(cents(new Dec(p[field]))))
    .map((field) => ({ path: `body.pagos.${index}.${field}`, message: 'at most 2 decimals: pesos are paid in cents' }));
  if (errors.length > 0) throw new PosError('validation_failed', 'A payment in pesos names a fraction of a cent.', { errors });
}

/**
 * Settles `total` (pesos, 2 decimals) with the tenders offered. Only cash may exceed what is
 * owed: the excess is the change, taken off the cash tenders (pesos first, then foreign cash,
 * each in its own currency at 4 decimals) so that SR's sum of the payments is the total plus the
 * tips. Short, or paid over with a tender that gives no change: 422, and nothing is written.
 */
export function settleTenders(total: Decimal, offered: readonly Offered[], methods: ReadonlyMap<string, PaymentMethod>): Settlement {
  const tenders = offered.map((p, i) => {
    const method = methods.get(collationKey(p.idFormaDePago));
    if (!method) throw new PosError('payment_method_not_found', `There is no payment method ${p.idFormaDePago}.`, { idFormaDePago: p.idFormaDePago });
    refuseFractionsOfCents(p, i, method);
    return { method, importe: new Dec(p.importe), propina: new Dec(p.propina), referencia: p.referencia };
  });
  const sum = (list: typeof tenders) => list.reduce((s, t) => s.plus(pesos(t.importe, t.method)), new Dec(0));
  const tendered = cents(sum(tenders));
  const withoutChange = cents(sum(tenders.filter((t) => !isCash(t.method))));
  if (withoutChange.gt(total)) {
    throw new PosError('overpayment', `Tenders other than cash give no change: they come to ${withoutChange.toFixed(2)} on a total of ${total.toFixed(2)}.`, {
      total: total.toNumber(),
      sinCambio: withoutChange.toNumber(),
    });
  }
  if (tendered.lt(total)) {
    throw new PosError('payment_insufficient', `The tenders come to ${tendered.toFixed(2)}; the account's total is ${total.toFixed(2)}.`, {
      total: total.toNumber(),
      pagado: tendered.toNumber(),
    });
  }
  const cambio = tendered.minus(total);
  let owed = cambio;
  const cashFirst = tenders.filter((t) => isCash(t.method)).sort((a, b) => Number(!a.method.tipodecambio.eq(1)) - Number(!b.method.tipodecambio.eq(1)));
  for (const t of cashFirst) {
    if (owed.lte(0)) break;
    const taken = Dec.min(owed, pesos(t.importe, t.method));
    t.importe = t.importe.minus(taken.div(t.method.tipodecambio)).toDecimalPlaces(4, Dec.ROUND_HALF_UP);
    owed = owed.minus(taken);
  }
  const kept = tenders.filter((t) => !t.importe.isZero() || !t.propina.isZero());
  const buckets = { efectivo: new Dec(0), tarjeta: new Dec(0), vales: new Dec(0), credito: new Dec(0) };
  let propina = new Dec(0);
  let propinaTarjeta = new Dec(0);
  for (const t of kept) {
    const bucket = tenderOf(t.method.tipo) ?? 'credito';
    buckets[bucket] = buckets[bucket].plus(pesos(t.importe.plus(t.propina), t.method));
    const tip = pesos(t.propina, t.method);
    propina = propina.plus(tip);
    if (bucket === 'tarjeta') propinaTarjeta = propinaTarjeta.plus(tip);
  }
  return { tenders: kept, cambio, buckets, propina, propinaTarjeta };
}
