import type { Scenario } from './index.js';

export const catalogScenarios: Scenario[] = [
  { op: 'products.list', input: { page: 2, pageSize: 10 } },
  { op: 'products.list', input: { search: 'café', idGrupo: 'BEB', clasificacion: 1, visibleMenu: true, idEmpresa: '0000000001' } },
  { op: 'groups.list', input: { search: 'bebidas' } },
  { op: 'stations.list', input: { search: 'caja' } },
  // Every terminal, area and table on one page: the tables with the accounts that hold them.
  { op: 'stations.list', input: { pageSize: 100 } },
  { op: 'waiters.list', input: { search: 'juan' } },
  { op: 'companies.list', input: {} },
  { op: 'paymentMethods.list', input: { search: 'efe' } },
  { op: 'discountTypes.list', input: {} },
];
