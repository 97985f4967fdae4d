/**
 * The records events carry, as the lists return them, read only for what a poll found changed:
 * open accounts from the temporary tables, accounts a shift close moved from the history tables
 * (found by the folio they had, `foliotempcheques`, and their opening time), shifts, products.
 */
import type { PosContext } from '../context.js';
import { productsQuery, productToApi } from '../operations/catalogs.js';
import { CLOSED_TABLES, HEADER_COLUMNS, ordersOf, TEMP_TABLES } from '../operations/order-records.js';
import { shiftsQuery, shiftsToApi } from '../operations/shifts.js';
import { accountKey, openedText } from './observe.js';

type Order = Awaited<ReturnType<typeof ordersOf>>[number];
export type ShiftRecord = Awaited<ReturnType<typeof shiftsToApi>>[number];
export type ProductRecord = ReturnType<typeof productToApi>;

/** SQL Server takes at most 2,100 parameters per statement. */
const PER_STATEMENT = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += PER_STATEMENT) out.push(items.slice(i, i + PER_STATEMENT));
  return out;
}

/** Accounts in the temporary tables by folio. */
export async function openOrders(ctx: PosContext, folios: readonly number[]): Promise<Map<number, Order>> {
  const out = new Map<number, Order>();
  for (const chunk of chunks(folios)) {
    const headers = await ctx.db.selectFrom('tempcheques as h').select(HEADER_COLUMNS).where('h.folio', 'in', chunk).execute();
    for (const order of await ordersOf(ctx, TEMP_TABLES, headers)) out.set(order.folio, order);
  }
  return out;
}

/** History copies of accounts that had these temporary folios, by account key (folio and opening time). */
export async function closedOrders(ctx: PosContext, folios: readonly number[]): Promise<Map<string, Order>> {
  const out = new Map<string, Order>();
  for (const chunk of chunks(folios)) {
    const headers = await ctx.db
      .selectFrom('cheques as h')
      .select(HEADER_COLUMNS)
      .select('h.foliotempcheques')
      .where('h.foliotempcheques', 'in', chunk)
      .execute();
    const orders = await ordersOf(ctx, CLOSED_TABLES, headers);
    headers.forEach((h, i) => out.set(accountKey(Number(h.foliotempcheques), openedText(h.fecha)), orders[i]!));
  }
  return out;
}

/** The keys (temporary folio and opening time) of the accounts these shifts' closes moved to history. */
export async function closedAccountKeys(ctx: PosContext, idturnos: readonly number[]): Promise<ClosedAccountKey[]> {
  const out: ClosedAccountKey[] = [];
  for (const chunk of chunks(idturnos)) {
    const rows = await ctx.db
      .selectFrom('cheques')
      .select(['foliotempcheques', 'fecha', 'idturno'])
      .where('idturno', 'in', chunk)
      .orderBy('foliotempcheques')
      .execute();
    for (const r of rows) {
      const folio = Number(r.foliotempcheques);
      const opened = openedText(r.fecha);
      out.push({ key: accountKey(folio, opened), folio, opened, idturno: Number(r.idturno) });
    }
  }
  return out;
}

export interface ClosedAccountKey {
  key: string;
  folio: number;
  opened: string;
  idturno: number;
}

export async function shiftRecords(ctx: PosContext, idturnos: readonly number[]): Promise<Map<number, ShiftRecord>> {
  const out = new Map<number, ShiftRecord>();
  for (const chunk of chunks(idturnos)) {
    const rows = await shiftsQuery(ctx).where('t.idturno', 'in', chunk).execute();
    for (const record of await shiftsToApi(ctx, rows)) out.set(record.idTurno, record);
  }
  return out;
}

/** Every product of every company, or only those with these ids. */
export async function productRecords(ctx: PosContext, ids?: readonly string[]): Promise<ProductRecord[]> {
  if (ids === undefined) return (await productsQuery(ctx).execute()).map(productToApi);
  const out: ProductRecord[] = [];
  for (const chunk of chunks(ids)) out.push(...(await productsQuery(ctx).where('p.idproducto', 'in', chunk).execute()).map(productToApi));
  return out;
}
