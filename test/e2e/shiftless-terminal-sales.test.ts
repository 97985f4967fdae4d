/**
 * A quick sale made while no shift is open (the seed's turnDependent false) at a terminal, which
 * sells on its cash station's shift (estaciones.cajacomandero), is taken by that station's next
 * close however the terminal's cajacomandero is padded (blanks, a no-break space, a tab): the
 * sales made while the shift was open already went to it, and the ones made without a shift were
 * left at shift 0, in no cash cut.
 */
import { expect, it } from 'vitest';
import { accountSuite } from '../support/accounts.js';
import { orderBody } from '../support/order-body.js';

const { db: branchDb, write } = accountSuite();
const company = '0000000001';
const quickSale = (estacion: string) =>
  write(
    '/ordenes/{lk}',
    orderBody({ turnDependent: false, estacion, serie: 'A', idFormaDePago: 'EFE', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }),
  );

it.each([' CAJA2   ', 'CAJA2\u00a0', '\tCAJA2\t'])('is consolidated at a terminal whose cash station is written as %j', async (cajacomandero) => {
  const db = branchDb();
  const padded = await db.selectFrom('estaciones').select('cajacomandero').where('idestacion', '=', 'TERM1').executeTakeFirstOrThrow();
  await db.updateTable('estaciones').set({ cajacomandero }).where('idestacion', '=', 'TERM1').execute();
  try {
    const open = await db.selectFrom('turnos').select('idturno').where('idestacion', '=', 'CAJA2').where('cierre', 'is', null).execute();
    for (const { idturno } of open)
      expect((await write('/turnos_cierre/{lk}', { idTurno: Number(idturno), estacion: 'CAJA2', idEmpresa: company })).status).toBe(200);
    const waiting = await quickSale('TERM1');
    expect(waiting.body.idTurno).toBe(0);
    const opened = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 0 });
    const idTurno = opened.body.idTurno as number;
    // Sold while the shift is open, it goes to the shift: so must the one made without it.
    expect((await quickSale('TERM1')).body.idTurno).toBe(idTurno);
    const closed = await write('/turnos_cierre/{lk}', { idTurno, estacion: 'CAJA2', idEmpresa: company });
    expect(closed.body).toMatchObject({ migratedCheques: 2, efectivo: 178 });
    const moved = await db.selectFrom('cheques').select('idturno').where('foliotempcheques', '=', waiting.body.folio).executeTakeFirst();
    expect(Number(moved?.idturno)).toBe(idTurno);
  } finally {
    await db.updateTable('estaciones').set({ cajacomandero: padded.cajacomandero }).where('idestacion', '=', 'TERM1').execute();
  }
});
