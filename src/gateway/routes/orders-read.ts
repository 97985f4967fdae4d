import * as ops from '../../protocol/operations/orders-read.js';
import { route } from './route.js';

const tag = 'Orders';

export const ordersReadRoutes = [
  route({ operationId: 'listTempOrders', method: 'GET', url: '/temp_ordenes/:licenseKey', op: ops.listTempOrders, summary: 'List temporary orders', tag, from: 'query', envelope: 'page', jobId: false }),
  route({ operationId: 'listOpenOrders', method: 'GET', url: '/temp_ordenes/:licenseKey/abiertas', op: ops.listOpenOrders, summary: 'List open orders of the current shift', tag, from: 'query', envelope: 'list', jobId: false }),
  route({ operationId: 'listTempOrderLines', method: 'GET', url: '/temp_ordenes_detalle/:licenseKey', op: ops.listTempOrderLines, summary: 'List temporary order lines', tag, from: 'query', envelope: 'page', jobId: true }),
  route({ operationId: 'listClosedOrders', method: 'GET', url: '/ordenes/:licenseKey', op: ops.listClosedOrders, summary: 'List closed orders', tag, from: 'query', envelope: 'page', jobId: false }),
  route({ operationId: 'searchClosedOrdersByShifts', method: 'POST', url: '/ordenes/buscar/:licenseKey', op: ops.searchClosedOrdersByShifts, summary: 'Search closed orders by shift list', tag, from: 'body', envelope: 'page', jobId: false }),
  route({ operationId: 'listClosedOrderLines', method: 'GET', url: '/ordenes_detalle/:licenseKey', op: ops.listClosedOrderLines, summary: 'List closed order lines', tag, from: 'query', envelope: 'page', jobId: true }),
  route({ operationId: 'listDayOrders', method: 'GET', url: '/ordenes_dia/:licenseKey', op: ops.listDayOrders, summary: 'List operational-day orders', tag, from: 'query', envelope: 'page', jobId: false }),
];
