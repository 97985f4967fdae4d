import { readInstalledSchema } from '../../../src/pos/columns.js';
import { dialectOf } from '../../../src/pos/sql-dialect.js';
import { type PosDb } from '../../../src/pos/schema.js';
import { SCENARIO_NOW } from './clock.js';
import type { RunOp, Scenario } from './index.js';

const company = '0000000001';

/** Every column of the demo product 9002 (its own modifier) in the update's body, with a new price. */
const extraQueso = {
  idProducto: '9002',
  idEmpresa: company,
  descripcionProducto: 'Extra queso gratinado',
  idGrupo: 'MOD',
  nombreCorto: 'Extra queso',
  visibleMenu: true,
  precio: 18.5,
  impuesto1: 16,
  impuesto2: 0,
  impuesto3: 0,
  bloqueado: false,
  permitirprodcompenmodif: true,
};

/** A paid quick sale (ticket number assigned) with an invoice linked while it is still in the temporary tables. */
async function invoicedSale(db: PosDb, run: RunOp): Promise<{ numCheque: number; serie: string }> {
  const sale = await run('orders.createClosed', {
    estacion: 'CAJA1',
    serie: 'A',
    idEmpresa: company,
    idFormaDePago: 'EFE',
    productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }],
  });
  const schema = await readInstalledSchema(db, dialectOf(db), ['facturas']);
  const idfactura = 7001;
  await db
    .insertInto('facturas')
    .values(
      schema.completeRow('facturas', {
        idfactura,
        serie: 'F',
        folio: 1,
        fecha: SCENARIO_NOW,
        idempresa: company,
        cancelada: false,
        femexxmlvalido: '<cfdi:Comprobante Folio="1"/>',
      }),
    )
    .execute();
  await db.insertInto('tempfoliosfacturados').values({ idfactura, folio: sale.folio, porcentajefac: 100 }).execute();
  return { numCheque: sale.numcheque, serie: 'A' };
}

/** A waiter clocked in just now: the default window (the current operational day) is never empty. */
async function clockedInNow(db: PosDb): Promise<void> {
  await db.insertInto('registroasistencias').values({ idmovto: 'tsql-1', idempleado: '01', entrada: SCENARIO_NOW, salida: null, tipo: 1 }).execute();
}

export const attendanceProductScenarios: Scenario[] = [
  { op: 'attendance.list', input: {}, setup: (db) => clockedInNow(db) },
  {
    op: 'attendance.list',
    input: { entradaStart: '2000-01-01T00:00:00-06:00', entradaEnd: '2100-01-01', tipo: 1, abiertas: true, search: 'juan', page: 1, pageSize: 10 },
  },
  { op: 'attendance.list', input: { entradaStart: '2000-01-01', abiertas: false } },
  { op: 'products.update', input: { ...extraQueso, usuario: 'ADMIN' } },
  {
    op: 'products.update',
    input: {
      ...extraQueso,
      idProducto: '1001',
      descripcionProducto: 'Café americano',
      idGrupo: 'BEB',
      nombreCorto: 'Americano',
      precio: 35,
      permitirprodcompenmodif: false,
    },
  },
  { op: 'invoices.xml', input: { idEmpresa: company }, setup: (db, run) => invoicedSale(db, run) },
];
