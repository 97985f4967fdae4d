import type { RunOp, Scenario } from './index.js';
import type { PosDb } from '../../../src/pos/schema.js';
import { orderBody } from '../../support/order-body.js';

const header = orderBody({ serie: 'A', noPersonas: 2, mesa: '', idMesero: '01' });
const base = { movimiento: 1, idProducto: '3001', cantidad: 2 };
const modifier = { movimiento: 2, idProducto: '9001', cantidad: 1, modificador: true };
const drink = { movimiento: 3, idProducto: '1005', cantidad: 1 };

async function account(run: RunOp): Promise<{ folio: number }> {
  const created = await run('orders.create', { ...header, productos: [base, modifier, drink] });
  return { folio: created.folio };
}

/** A handheld device registered: accounts at a table get SR's copy for devices (cuentas, detallescuentas). */
const withDevice = {
  setup: async (db: PosDb) => {
    const at = new Date(0);
    await db
      .insertInto('registro_dispositivos')
      .values({
        id_dispositivo: 'tablet-1',
        numerocontrol: '',
        contraseniacontrol: '',
        fecha: at,
        nombre_dispositivo: 'Tableta',
        sistema_registro: 0,
        vigencia: '',
        ultima_actualizacion: at,
        usar_mercadopago: false,
        app_version: '',
      })
      .execute();
  },
  teardown: async (db: PosDb) => {
    await db.deleteFrom('registro_dispositivos').execute();
  },
};

export const orderScenarios: Scenario[] = [
  { op: 'orders.create', input: { ...header, mesa: '3', turnDependent: true, productos: [base, modifier, drink] } },
  { op: 'orders.create', input: { ...header, usuario: 'CAJERO' } },
  { op: 'orders.createClosed', input: { ...header, idFormaDePago: 'EFE', productos: [base, modifier, drink] } },
  {
    op: 'orders.addLines',
    input: {
      usuario: 'CAJERO',
      productos: [
        { ...base, idProducto: '3002' },
        { ...modifier, idProducto: '9002' },
      ],
    },
    setup: (_db, run) => account(run),
  },
  { op: 'orders.create', input: { ...header, mesa: '8', productos: [base, { ...drink, movimiento: 2 }] }, ...withDevice },
  {
    op: 'orders.addLines',
    input: { productos: [{ ...base, idProducto: '3002' }] },
    setup: async (db, run) => {
      await withDevice.setup(db);
      return { folio: (await run('orders.create', { ...header, mesa: '9', productos: [base, { ...drink, movimiento: 2 }] })).folio };
    },
    teardown: withDevice.teardown,
  },
  {
    op: 'orders.cancelLines',
    input: { productos: [{ movimiento: 1, idProducto: '3001' }], razon: 'Error de captura', usuario: 'CAJERO' },
    setup: (_db, run) => account(run),
  },
  {
    op: 'orders.discount',
    input: { modo: 'importe', base: 'subtotal', valor: 10, idTipoDescuento: 'EMP', comentario: 'Empleado', usuario: 'ADMIN' },
    setup: (_db, run) => account(run),
  },
  {
    op: 'orders.lineDiscount',
    input: { idTipoDescuento: 'LIB', productos: [{ movimiento: 3, idProducto: '1005', modo: 'porcentaje', valor: 100 }] },
    setup: (_db, run) => account(run),
  },
];
