import type { RunOp, Scenario } from './index.js';
import { PRINTER_ID, printerFor } from './printing.js';
import { orderBody } from '../../support/order-body.js';

const header = orderBody({ serie: 'A', noPersonas: 2, mesa: '', idMesero: '01' });
const tacos = { movimiento: 1, idProducto: '3001', cantidad: 2 };

async function account(run: RunOp): Promise<{ folio: number }> {
  const created = await run('orders.create', { ...header, productos: [tacos] });
  return { folio: created.folio };
}

async function printed(run: RunOp): Promise<{ folio: number }> {
  const { folio } = await account(run);
  await run('orders.print', { folio });
  return { folio };
}

export const settlementScenarios: Scenario[] = [
  { op: 'orders.print', input: { usuario: 'CAJERO' }, setup: (_db, run) => account(run) },
  { op: 'orders.print', input: {}, setup: (_db, run) => printed(run) },
  // With the customer's ticket: what the ticket reads in the transaction, and its record after the commit.
  { op: 'orders.print', input: { printerId: PRINTER_ID }, setup: async (_db, run) => ({ ...(await account(run)), ...(await printerFor('thermal')) }) },
  {
    op: 'orders.pay',
    input: {
      usuario: 'CAJERO',
      pagos: [
        { idFormaDePago: 'USD', importe: 5 },
        { idFormaDePago: 'EFE', importe: 100 },
        { idFormaDePago: 'TAR', importe: 10, propina: 5, referencia: 'AUT1' },
      ],
    },
    setup: (_db, run) => account(run),
  },
  { op: 'orders.pay', input: { pagos: [{ idFormaDePago: 'TAR', importe: 178 }] }, setup: (_db, run) => printed(run) },
  { op: 'orders.reopen', input: { usuario: 'CAJERO' }, setup: (_db, run) => printed(run) },
  { op: 'orders.cancel', input: { razon: 'El cliente se fue', idMotivoCancela: '01', usuario: 'CAJERO' }, setup: (_db, run) => account(run) },
  { op: 'shifts.cashCut', input: { idTurno: 2 } },
  {
    // An open shift's cut counts its accounts and payments before and after it reads them.
    op: 'shifts.cashCut',
    input: {},
    setup: async (db, run) => {
      const open = await db.selectFrom('turnos').select('idturno').where('cierre', 'is', null).orderBy('idturno').executeTakeFirst();
      if (open) return { idTurno: Number(open.idturno) };
      return { idTurno: (await run('shifts.open', { estacion: 'CAJA2', idEmpresa: '0000000001', cajero: 'CAJERO', fondo: 0 })).idTurno };
    },
  },
];
