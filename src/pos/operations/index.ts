/** Every operation the agent can run, by name. Adding an operation = a schema, a function, a line here. */
import type { Implementation } from '../operation.js';
import * as cancellation from './cancellation.js';
import * as catalogs from './catalogs.js';
import * as discounts from './discounts.js';
import * as orders from './orders.js';

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
] as Implementation[];

export const operations: ReadonlyMap<string, Implementation> = new Map(all.map((impl) => [impl.def.name, impl]));
