/**
 * What the customer's ticket of an account shows, read in the print's transaction so that it
 * is the account as printed: the business (the account's company), its number and table, its
 * lines, the totals just stored with each tax, and the tenders a terminal has already recorded.
 */
import type { Decimal } from 'decimal.js';
import type { AccountTicket, TicketAmount } from '../../protocol/account-ticket.js';
import type { PosContext } from '../context.js';
import { Dec, type ApiTotales } from '../totals.js';
import { dec, int, text } from '../values.js';
import type { LockedAccount, StoredLine } from './account.js';

const money = (value: Decimal.Value) => new Dec(value).toDecimalPlaces(2).toFixed(2);

/** A line's amount as the customer pays it: quantity × price with tax, less the line's own discount. */
function lineAmount(line: StoredLine): string {
  return money(line.cantidad.times(line.precio).times(new Dec(100).minus(line.descuento)).dividedBy(100));
}

/**
 * The totals block: the general discount's percentage when there is one, the subtotal before tax
 * after every discount, each tax, and the total, which the subtotal and the taxes add up to.
 */
function totalsOf(generalDiscount: string, totales: ApiTotales): TicketAmount[] {
  const rows: TicketAmount[] = [];
  if (!new Dec(generalDiscount).isZero()) rows.push({ label: `Descuento ${new Dec(generalDiscount).toFixed()} %`, amount: '' });
  rows.push({ label: 'Subtotal', amount: money(totales.subtotalConDescuento) });
  const taxes = [totales.totalImpuesto1, totales.totalImpuesto2, totales.totalImpuesto3];
  taxes.forEach((tax, i) => {
    if (tax !== 0) rows.push({ label: `Impuesto ${i + 1}`, amount: money(tax) });
  });
  rows.push({ label: 'TOTAL', amount: money(totales.total) });
  return rows;
}

async function paymentsOf(ctx: PosContext, folio: number): Promise<TicketAmount[]> {
  const rows = await ctx.db
    .selectFrom('tempchequespagos as p')
    .leftJoin('formasdepago as f', 'f.idformadepago', 'p.idformadepago')
    .select(['p.idformadepago', 'f.descripcion', 'p.importe', 'p.propina', 'p.tipodecambio'])
    .where('p.folio', '=', folio)
    .orderBy('p.idformadepago')
    .execute();
  // In pesos, as SR sums a tender (order-lifecycle row 546).
  return rows.map((r) => ({
    label: text(r.descripcion) || (text(r.idformadepago) ?? ''),
    amount: money(dec(r.importe).plus(dec(r.propina)).times(dec(r.tipodecambio))),
  }));
}

export async function readAccountTicket(
  ctx: PosContext,
  account: LockedAccount,
  lines: readonly StoredLine[],
  printed: { numcheque: number; impresiones: number },
  totales: ApiTotales,
): Promise<AccountTicket> {
  const header = await ctx.db
    .selectFrom('tempcheques as t')
    .leftJoin('meseros as m', 'm.idmesero', 't.idmesero')
    .leftJoin('empresas as e', 'e.idempresa', 't.idempresa')
    .select(['t.nopersonas', 'm.nombre as mesero', 'e.nombre as empresa', 'e.sucursal'])
    .where('t.folio', '=', account.folio)
    .executeTakeFirstOrThrow();
  const businessName = text(header.empresa) || 'Soft Restaurant';
  const sucursal = text(header.sucursal);
  return {
    businessName,
    // Many installations repeat the company's name as its branch's.
    businessSubtitle: sucursal && sucursal !== businessName ? sucursal : undefined,
    numcheque: printed.numcheque,
    folio: account.folio,
    mesa: account.mesa,
    mesero: text(header.mesero) ?? '',
    personas: int(header.nopersonas) ?? 0,
    isReprint: printed.impresiones > 1,
    date: ctx.now,
    lines: lines.map((line) => ({
      cantidad: line.cantidad.toNumber(),
      descripcion: line.descripcion,
      importe: line.modificador && line.precio.isZero() ? '' : lineAmount(line),
      modificador: line.modificador,
    })),
    totals: totalsOf(account.descuento, totales),
    payments: await paymentsOf(ctx, account.folio),
  };
}
