/** Every operation the agent can run, by name. Adding an operation = a schema, a function, a line here. */
import type { Implementation } from '../operation.js';
import * as catalogs from './catalogs.js';

const all: Implementation[] = [
  catalogs.listProducts,
  catalogs.listGroups,
  catalogs.listStations,
  catalogs.listWaiters,
  catalogs.listCompanies,
  catalogs.listPaymentMethods,
  catalogs.listDiscountTypes,
] as Implementation[];

export const operations: ReadonlyMap<string, Implementation> = new Map(all.map((impl) => [impl.def.name, impl]));
