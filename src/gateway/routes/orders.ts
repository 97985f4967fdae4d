import * as ops from '../../protocol/operations/orders.js';
import { route } from './route.js';

const tag = 'Accounts';

export const orderRoutes = [
  route({ operationId: 'createOrder', method: 'POST', url: '/temp_ordenes/:licenseKey', op: ops.createOrder, summary: 'Create an open order', tag, from: 'body', envelope: 'result', jobId: true, status: 201 }),
  route({ operationId: 'createClosedOrder', method: 'POST', url: '/ordenes/:licenseKey', op: ops.createClosedOrder, summary: 'Create a closed (paid, printed) quick sale', tag, from: 'body', envelope: 'result', jobId: true, status: 201 }),
  route({ operationId: 'addOrderLines', method: 'POST', url: '/temp_ordenes/:licenseKey/:folio/productos', op: ops.addLines, summary: 'Add lines to an open order', tag, from: 'body', pathInput: ['folio'], envelope: 'result', jobId: true }),
  route({ operationId: 'cancelOrderLines', method: 'POST', url: '/temp_ordenes/:licenseKey/:folio/cancelar_productos', op: ops.cancelLines, summary: 'Cancel lines of an open order', tag, from: 'body', pathInput: ['folio'], envelope: 'result', jobId: true }),
  route({ operationId: 'setOrderDiscount', method: 'POST', url: '/temp_ordenes/:licenseKey/:folio/descuento', op: ops.generalDiscount, summary: 'Set the general discount of an open order', tag, from: 'body', pathInput: ['folio'], envelope: 'result', jobId: true }),
  route({ operationId: 'setLineDiscounts', method: 'POST', url: '/temp_ordenes/:licenseKey/:folio/descuento_productos', op: ops.lineDiscount, summary: 'Set discounts on lines of an open order', tag, from: 'body', pathInput: ['folio'], envelope: 'result', jobId: true }),
];
