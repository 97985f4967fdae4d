/**
 * Every operation the agent can run, by name: the POS operations and the print operations plug
 * in here, above both. Adding an operation = a schema, a function, a line here.
 */
import type { Implementation } from '../pos/operation.js';
import * as attendance from '../pos/operations/attendance.js';
import * as cancelAccount from '../pos/operations/cancel-account.js';
import * as payAccount from '../pos/operations/pay-account.js';
import * as reopenAccount from '../pos/operations/reopen-account.js';
import * as cancelLines from '../pos/operations/cancel-lines.js';
import * as catalogs from '../pos/operations/catalogs.js';
import * as discounts from '../pos/operations/discounts.js';
import * as invoiceXml from '../pos/operations/invoice-xml.js';
import * as orders from '../pos/operations/orders.js';
import * as updateProduct from '../pos/operations/update-product.js';
import * as shiftClose from '../pos/operations/shift-close.js';
import * as shiftCashCut from '../pos/operations/shift-cash-cut.js';
import * as shifts from '../pos/operations/shifts.js';
import * as ordersRead from '../pos/operations/orders-read.js';
import * as printing from './print-operations.js';

const all: Implementation[] = [
  catalogs.listProducts,
  catalogs.listGroups,
  catalogs.listStations,
  catalogs.listWaiters,
  catalogs.listCompanies,
  catalogs.listPaymentMethods,
  catalogs.listDiscountTypes,
  orders.createOrder,
  orders.createClosedOrder,
  orders.addLines,
  cancelLines.cancelLines,
  discounts.generalDiscount,
  discounts.lineDiscount,
  printing.printAccount,
  payAccount.payAccount,
  reopenAccount.reopenAccount,
  cancelAccount.cancelAccount,
  shifts.listShifts,
  shifts.openShift,
  shiftClose.closeShift,
  shiftCashCut.cashCut,
  printing.printOrder,
  printing.printTest,
  ordersRead.listTempOrders,
  ordersRead.listTempOrderLines,
  ordersRead.listClosedOrders,
  ordersRead.searchClosedOrdersByShifts,
  ordersRead.listClosedOrderLines,
  ordersRead.listDayOrders,
  ordersRead.listOpenOrders,
  attendance.listAttendance,
  updateProduct.updateProduct,
  invoiceXml.invoiceXml,
];

/** The registry by name; an operation listed twice is a mistake that must stop the agent, not shadow the first. */
export function registry(implementations: readonly Implementation[]): ReadonlyMap<string, Implementation> {
  const byName = new Map<string, Implementation>();
  for (const impl of implementations) {
    if (byName.has(impl.def.name)) throw new Error(`operation ${impl.def.name} is registered twice`);
    byName.set(impl.def.name, impl);
  }
  return byName;
}

export const operations = registry(all);
