import type { Scenario } from './index.js';

const company = '0000000001';

export const shiftScenarios: Scenario[] = [
  {
    op: 'shifts.list',
    input: {
      search: 'caja',
      aperturaStart: '2020-01-01',
      aperturaEnd: '2099-12-31T23:59:59-06:00',
      cierreStart: '2020-01-01T00:00:00',
      cierreEnd: '2099-01-01',
    },
  },
  { op: 'shifts.list', input: {} },
  { op: 'shifts.open', input: { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 500, idMesero: '02' } },
  {
    op: 'shifts.close',
    input: {
      idTurno: 2,
      estacion: 'CAJA1',
      idEmpresa: company,
      serie: 'A',
      declaracion: [
        { idFormaDePago: 'EFE', importe: 100 },
        { idFormaDePago: 'USD', importe: 5 },
      ],
    },
    setup: async (db, run) => {
      // With the rule on, the close counts open accounts first; earlier scenarios left some open.
      await db.updateTable('configuracion').set({ nopermitircerrarturnocuentasabiertas: true }).execute();
      await db.updateTable('tempcheques').set({ cancelado: true }).where('pagado', '=', false).execute();
      await run('orders.createClosed', {
        estacion: 'CAJA1',
        serie: 'A',
        idEmpresa: company,
        idFormaDePago: 'EFE',
        productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }],
      });
    },
  },
];
