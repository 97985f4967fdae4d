import * as ops from '../../protocol/operations/catalogs.js';
import { route } from './route.js';

const tag = 'Catalogues';

export const catalogRoutes = [
  route({ operationId: 'listProducts', method: 'GET', url: '/productos/:licenseKey', op: ops.listProducts, summary: 'List products', tag, from: 'query', envelope: 'page', jobId: true }),
  route({ operationId: 'listGroups', method: 'GET', url: '/grupos/:licenseKey', op: ops.listGroups, summary: 'List product groups', tag, from: 'query', envelope: 'page', jobId: true }),
  route({ operationId: 'listStations', method: 'GET', url: '/estaciones/:licenseKey', op: ops.listStations, summary: 'List stations', tag, from: 'query', envelope: 'page', jobId: true }),
  route({ operationId: 'listWaiters', method: 'GET', url: '/meseros/:licenseKey', op: ops.listWaiters, summary: 'List waiters', tag, from: 'query', envelope: 'list', jobId: false }),
  route({ operationId: 'listCompanies', method: 'GET', url: '/empresas/:licenseKey', op: ops.listCompanies, summary: 'List companies', tag, from: 'query', envelope: 'list', jobId: false }),
  route({ operationId: 'listPaymentMethods', method: 'GET', url: '/formas_pago/:licenseKey', op: ops.listPaymentMethods, summary: 'List payment methods', tag, from: 'query', envelope: 'page', jobId: true }),
  route({ operationId: 'listDiscountTypes', method: 'GET', url: '/tipos_descuento/:licenseKey', op: ops.listDiscountTypes, summary: 'List visible discount types', tag, from: 'query', envelope: 'list', jobId: true }),
];
