import * as ops from '../../protocol/operations/settlement.js';
import { route, type RouteDef } from './route.js';

const tag = 'Accounts';

function accountWrite(operationId: string, path: string, op: RouteDef['op'], summary: string): RouteDef {
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
  });
}

export const settlementRoutes = [
  accountWrite('printOrderCheck', 'imprimir', ops.printAccount, 'Print an open order (numbers it on the first print)'),
  accountWrite('payOrder', 'pagar', ops.payAccount, 'Pay an open order in full, with one or more tenders'),
  accountWrite('reopenOrder', 'reabrir', ops.reopenAccount, 'Reopen a printed, unpaid order'),
  accountWrite('cancelOrder', 'cancelar', ops.cancelAccount, 'Cancel a whole open order'),
];
