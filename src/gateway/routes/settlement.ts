import * as ops from '../../protocol/operations/settlement.js';
import { ApiError } from '../problems.js';
import { failIfAnyPrinterFailed, resolvePrinters } from './printing.js';
import { route, type RouteDef } from './route.js';

const tag = 'Accounts';

function accountWrite(operationId: string, path: string, op: RouteDef['op'], summary: string, extra: Partial<RouteDef> = {}): RouteDef {
  return route({
    operationId,
    method: 'POST',
    url: `/temp_ordenes/:licenseKey/:folio/${path}`,
    op,
    summary,
    tag,
    from: 'body',
    pathInput: ['folio'],
    envelope: 'result',
    jobId: true,
    ...extra,
  });
}

/**
 * The printer of the customer's ticket, resolved before anything is written (404
 * printer_not_found, 422 printer_not_thermal): a receipt needs a thermal printer.
 */
const ticketPrinter: RouteDef['prepare'] = async (ctx, params) => {
  if (params.printerId === undefined) return params;
  const printerId = params.printerId as string;
  const printers = await resolvePrinters(ctx, [printerId]);
  if (printers[printerId]!.kind !== 'thermal') {
    throw new ApiError('printer_not_thermal', `Printer ${printerId} is a label printer; a customer's ticket prints on a thermal printer.`, { printerId });
  }
  return { ...params, printers };
};

/**
 * The account's print is committed whatever its ticket's printer does: a failed ticket is the
 * print operations' 502 printer_failed, which also carries the account's answer (docs/api.md).
 */
const ticketPrinted: RouteDef['check'] = (data, jobId) => {
  const { ticket, ...account } = data;
  if (ticket === undefined) return;
  failIfAnyPrinterFailed(ticket as Record<string, unknown>, jobId, {
    sentence: `Account ${String(account.folio)} is printed all the same (numcheque ${String(account.numcheque)}): print it again for the ticket.`,
    fields: account,
  });
};

export const settlementRoutes = [
  accountWrite(
    'printOrderCheck',
    'imprimir',
    { ...ops.printAccount, input: ops.printAccountBody },
    'Print an open order (numbers it on the first print), and optionally its ticket',
    {
      prepare: ticketPrinter,
      check: ticketPrinted,
    },
  ),
  accountWrite('payOrder', 'pagar', ops.payAccount, 'Pay an open order in full, with one or more tenders'),
  accountWrite('reopenOrder', 'reabrir', ops.reopenAccount, 'Reopen a printed, unpaid order'),
  accountWrite('cancelOrder', 'cancelar', ops.cancelAccount, 'Cancel a whole open order'),
];
