/**
 * SR's terminals write the accounts of a shift while its close runs, and lock nothing the close
 * holds but the accounts' rows. A terminal reads the open shift before its payment's transaction
 * (order-lifecycle rows 510, 514), so it can pay an account into a shift whose close has already
 * copied the shift's accounts to history: that account must still end up in that shift's
 * history, which the next close at the station does. And a terminal that changes an account the
 * close has copied must not have its change lost with the temporary row the close deletes.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { accountSuite } from '../support/accounts.js';
import { testRunner } from '../support/job-runner.js';
import { orderBody } from '../support/order-body.js';
import { pauseAfterInsert } from '../support/statement-pause.js';
import { BRANCH } from '../support/stack.js';
import { until } from '../support/until.js';

const { db, write, stack } = accountSuite();
const company = '0000000001';

/** Closes the shift, running `meanwhile` once the close has copied the shift's accounts to `cheques`. */
async function closeAfterCopy(idTurno: number, meanwhile: () => Promise<void>) {
  const pos = stack().agents.get(BRANCH)!.pos;
  const pause = pauseAfterInsert('cheques');
  const runner = testRunner({ ...pos, db: pos.db.withPlugin(pause) });
  const closing = runner.run({
    type: 'job',
    jobId: randomUUID(),
    op: 'shifts.close',
    params: { idTurno, estacion: 'CAJA1', idEmpresa: company },
    budgetMs: 20_000,
  });
  await until(() => pause.reached);
  await meanwhile();
  pause.release();
  const closed = await closing;
  expect(closed.ok, JSON.stringify(closed)).toBe(true);
}

/** What the shift's history holds: its accounts' folios in `tempcheques` and SR's sum of their payments. */
async function history(idTurno: number) {
  const accounts = await db().selectFrom('cheques').select('foliotempcheques').where('idturno', '=', idTurno).execute();
  const paid = await db()
    .selectFrom('chequespagos as p')
    .innerJoin('cheques as h', 'h.folio', 'p.folio')
    .select(sql<string>`sum((p.importe + p.propina) * p.tipodecambio)`.as('pesos'))
    .where('h.idturno', '=', idTurno)
    .where('h.pagado', '=', true)
    .where('h.cancelado', '=', false)
    .executeTakeFirstOrThrow();
  return { folios: accounts.map((a) => Number(a.foliotempcheques)), pesos: Number(paid.pesos ?? 0) };
}

it('moves an account a terminal paid into the shift after its close copied it, at the station’s next close, under that shift', async () => {
  const open = await db().selectFrom('turnos').select('idturno').where('idestacion', '=', 'CAJA1').where('cierre', 'is', null).executeTakeFirstOrThrow();
  const idTurno = Number(open.idturno);
  const created = await write(
    '/temp_ordenes/{lk}',
    orderBody({ serie: 'A', mesa: '', idMesero: '01', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }),
  );
  const folio = created.body.folio as number;
  const schema = stack().agents.get(BRANCH)!.pos.schema;

  await closeAfterCopy(idTurno, async () => {
    // Paid at a terminal that read the shift before the close began.
    await db()
      .transaction()
      .execute(async (trx) => {
        await trx
          .insertInto('tempchequespagos')
          .values(schema.completeRow('tempchequespagos', { folio, idformadepago: 'EFE', importe: '89.0000', propina: 0, tipodecambio: 1 }))
          .execute();
        await trx
          .updateTable('tempcheques')
          .set({ pagado: true, impreso: true, cierre: new Date(), idturno: idTurno, efectivo: '89.0000' })
          .where('folio', '=', folio)
          .execute();
      });
  });
  const cut = (await stack().api('GET', `/turnos/${BRANCH}/${idTurno}/corte`)).body;
  expect((await history(idTurno)).folios).not.toContain(folio);

  const next = await write('/turnos_apertura/{lk}', { estacion: 'CAJA1', idEmpresa: company, cajero: 'CAJERO', fondo: 0 });
  const closed = await write('/turnos_cierre/{lk}', { idTurno: next.body.idTurno, estacion: 'CAJA1', idEmpresa: company });
  expect(closed.status, JSON.stringify(closed.body)).toBe(200);
  // The next shift took nothing: the account is the earlier shift's.
  expect(closed.body).toMatchObject({ efectivo: 0, tarjeta: 0, vales: 0, credito: 0 });
  expect(await db().selectFrom('tempcheques').select('folio').where('folio', '=', folio).executeTakeFirst()).toBeUndefined();
  const moved = await history(idTurno);
  expect(moved.folios).toContain(folio);
  // Its payment and lines carry its shift as SR's repointing finds them (idturno_cierre = cheques.idturno).
  const copy = await db().selectFrom('cheques').select('folio').where('foliotempcheques', '=', folio).where('idturno', '=', idTurno).executeTakeFirstOrThrow();
  const payment = await db().selectFrom('chequespagos').select('idturno_cierre').where('folio', '=', copy.folio).executeTakeFirstOrThrow();
  expect(Number(payment.idturno_cierre)).toBe(idTurno);
  expect(moved.pesos).toBe(cut.porTipo.efectivo);
  expect((await stack().api('GET', `/turnos/${BRANCH}/${idTurno}/corte`)).body.porTipo).toEqual(cut.porTipo);
});

it('keeps a cancellation a terminal makes to an account the close copied: the terminal waits for the close, or the account is not counted', async () => {
  const opened = await write('/turnos_apertura/{lk}', { estacion: 'CAJA1', idEmpresa: company, cajero: 'CAJERO', fondo: 0 });
  expect(opened.status, JSON.stringify(opened.body)).toBe(200);
  const idTurno = opened.body.idTurno as number;
  const sale = await write('/ordenes/{lk}', orderBody({ serie: 'A', idFormaDePago: 'EFE', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }));
  expect(sale.status, JSON.stringify(sale.body)).toBe(201);
  const folio = sale.body.folio as number;

  let cancelling: Promise<number> | undefined;
  await closeAfterCopy(idTurno, async () => {
    // A terminal cancels the paid sale; it may have to wait for the close.
    cancelling = db()
      .updateTable('tempcheques')
      .set({ cancelado: true })
      .where('folio', '=', folio)
      .executeTakeFirst()
      .then((r) => Number(r.numUpdatedRows));
    await sleep(500);
  });
  const cancelled = (await cancelling!) === 1;
  const archived = await db()
    .selectFrom('cheques')
    .select('cancelado')
    .where('foliotempcheques', '=', folio)
    .where('idturno', '=', idTurno)
    .executeTakeFirstOrThrow();
  const cut = (await stack().api('GET', `/turnos/${BRANCH}/${idTurno}/corte`)).body;
  // Cancelled by the terminal, the sale is neither paid in history nor counted; else it was the close's first.
  expect({ cancelado: archived.cancelado, efectivo: cut.porTipo.efectivo }).toEqual({ cancelado: cancelled, efectivo: cancelled ? 0 : 89 });
  expect((await history(idTurno)).pesos).toBe(cut.porTipo.efectivo);
});

it('copies no account a second time that a close before it copied and left in the temporary tables', async () => {
  const opened = await write('/turnos_apertura/{lk}', { estacion: 'CAJA1', idEmpresa: company, cajero: 'CAJERO', fondo: 0 });
  const idTurno = opened.body.idTurno as number;
  const sale = await write('/ordenes/{lk}', orderBody({ serie: 'A', idFormaDePago: 'EFE', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }));
  const folio = sale.body.folio as number;
  // SR's close, in several transactions, copied the sale and stopped before deleting it.
  const schema = stack().agents.get(BRANCH)!.pos.schema;
  const { folio: _temporary, ...header } = await db().selectFrom('tempcheques').selectAll().where('folio', '=', folio).executeTakeFirstOrThrow();
  const copy = await db()
    .insertInto('cheques')
    .values(schema.completeRow('cheques', { ...header, idturno: idTurno, foliotempcheques: folio }))
    .returning('folio')
    .executeTakeFirstOrThrow();
  const payments = await db().selectFrom('tempchequespagos').selectAll().where('folio', '=', folio).execute();
  await db()
    .insertInto('chequespagos')
    .values(payments.map((p) => schema.completeRow('chequespagos', { ...p, folio: copy.folio })))
    .execute();
  await db().updateTable('turnos').set({ cierre: new Date() }).where('idturno', '=', idTurno).execute();
  const cut = (await stack().api('GET', `/turnos/${BRANCH}/${idTurno}/corte`)).body;
  expect(cut.porTipo.efectivo).toBe(89);

  const next = await write('/turnos_apertura/{lk}', { estacion: 'CAJA1', idEmpresa: company, cajero: 'CAJERO', fondo: 0 });
  expect((await write('/turnos_cierre/{lk}', { idTurno: next.body.idTurno, estacion: 'CAJA1', idEmpresa: company })).status).toBe(200);
  expect((await history(idTurno)).folios.filter((f) => f === folio)).toHaveLength(1);
  expect((await stack().api('GET', `/turnos/${BRANCH}/${idTurno}/corte`)).body.porTipo).toEqual(cut.porTipo);
});
