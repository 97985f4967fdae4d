/** Every operation the agent can run, by name. Adding an operation = a schema, a function, a line here. */
import type { Implementation } from '../operation.js';
import * as printing from '../../printing/operations.js';
import * as attendance from './attendance.js';
import * as cancellation from './cancellation.js';
import * as catalogs from './catalogs.js';
import * as discounts from './discounts.js';
import * as invoices from './invoices.js';
import * as orders from './orders.js';
import * as products from './products.js';
import * as shiftClose from './shift-close.js';
import * as shifts from './shifts.js';
import * as ordersRead from './orders-read.js';

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
  cancellation.cancelLines,
  discounts.generalDiscount,
  discounts.lineDiscount,
  shifts.listShifts,
  shifts.openShift,
  shiftClose.closeShift,
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
  products.updateProduct,
  invoices.invoiceXml,
] as Implementation[];

export const operations: ReadonlyMap<string, Implementation> = new Map(all.map((impl) => [impl.def.name, impl]));
