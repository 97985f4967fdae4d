/**
 * Printing an account's check as Soft Restaurant does (order-lifecycle rows 358-365): the first
 * print numbers it from `folios.ultimofolio` of its series under the exclusive lock SR takes,
 * marks it printed and closed (`cierre`), and flags the handheld devices' copy; a reprint only
 * counts. A printed account takes no lines or discounts until it is reopened.
 */
import type { AccountTicket } from '../../protocol/account-ticket.js';
import type { PosContext } from '../context.js';
import { nextNumcheque } from '../counters.js';
import type { ApiTotales } from '../totals.js';
import { accountLines, lockAccount, refuseStates, requireUser, saveTotals, type LockedAccount } from './account.js';
import { readAccountTicket } from './account-ticket.js';
import { handheldDevicesInUse } from './handheld-accounts.js';

export interface Printed {
  numcheque: number;
  impresiones: number;
}

/**
 * Prints a locked account that is neither paid nor cancelled. A number it already has (it was
 * printed, then reopened) is kept: the customer's ticket does not change number.
 */
export async function printLocked(ctx: PosContext, account: LockedAccount): Promise<Printed> {
  const impresiones = account.impresiones + 1;
  if (account.impreso) {
    await ctx.db.updateTable('tempcheques').set({ impresiones }).where('folio', '=', account.folio).execute();
    return { numcheque: account.numcheque, impresiones };
  }
  const numcheque = account.numcheque > 0 ? account.numcheque : await nextNumcheque(ctx, account.seriefolio);
  // Rows 325 (no tip included) and 361, less campoadicional1, which SR fills with a code of its
  // own that nothing of ours reads.
  await ctx.db
    .updateTable('tempcheques')
    .set(
      ctx.schema.fitRow('tempcheques', {
        impreso: true,
        numcheque,
        cierre: ctx.now,
        impresiones,
        cambiorepartidor: 0,
        codigo_unico_af: '',
        domicilioprogramado: false,
        autorizacionfolio: '',
        propinaincluida: 0,
      }),
    )
    .where('folio', '=', account.folio)
    .execute();
  if (await handheldDevicesInUse(ctx)) {
    // Rows 328 and 363, as one statement.
    await ctx.db
      .updateTable('cuentas')
      .set(ctx.schema.fitRow('cuentas', { propinaincluida: 0, imprimir: true, procesado: 1 }))
      .where('foliocuenta', '=', account.folio)
      .execute();
  }
  return { numcheque, impresiones };
}

export interface AccountPrint {
  answer: { folio: number; numcheque: number; impresiones: number; totales: ApiTotales };
  /** What the customer's ticket shows, read in the same transaction; only when asked for. */
  ticket?: AccountTicket;
}

/**
 * The account's print in the POS (the `orders.print` operation, which agent/print-operations.ts
 * completes with the customer's ticket after the commit).
 */
export async function printAccountInPos(ctx: PosContext, input: { folio: number; usuario?: string }, withTicket: boolean): Promise<AccountPrint> {
  const account = await lockAccount(ctx, input.folio);
  refuseStates(account, ['cancelado', 'pagado', 'cuentaenuso']);
  await requireUser(ctx, input.usuario);
  const lines = await accountLines(ctx, account.folio);
  const totales = await saveTotals(ctx, account.folio, lines, account.descuento);
  const printed = await printLocked(ctx, account);
  const answer = { folio: account.folio, ...printed, totales };
  return withTicket ? { answer, ticket: await readAccountTicket(ctx, account, lines, printed, totales) } : { answer };
}
