import { attendanceProductRoutes } from './attendance-products.js';
import { catalogRoutes } from './catalogs.js';
import { invoiceRoutes } from './invoices.js';
import { orderRoutes } from './orders.js';
import { shiftRoutes } from './shifts.js';
import { ordersReadRoutes } from './orders-read.js';
import { printingRoutes } from './printing.js';
import { settlementRoutes } from './settlement.js';
import type { RouteDef } from './route.js';

export const apiRoutes: readonly RouteDef[] = [
  ...catalogRoutes,
  ...orderRoutes,
  ...settlementRoutes,
  ...shiftRoutes,
  ...printingRoutes,
  ...ordersReadRoutes,
  ...attendanceProductRoutes,
  ...invoiceRoutes,
];
