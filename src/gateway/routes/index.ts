import { catalogRoutes } from './catalogs.js';
import { orderRoutes } from './orders.js';
import type { RouteDef } from './route.js';

export const apiRoutes: readonly RouteDef[] = [...catalogRoutes, ...orderRoutes];
