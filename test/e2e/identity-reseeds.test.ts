/**
 * Identity reseeds as SR's close makes them (shift-close rows 69-70, 136-137), with SQL Server's
 * meaning on both servers: `cheques` continues after its highest folio, reseeded before the
 * close copies into it; an emptied `tempcheques` starts again, from 1 after rows, from 0 if it
 * never had one.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPosSchema } from '../../src/pos/runtime.js';
import type { PosDb } from '../../src/pos/schema.js';
import { dialectOf, reseedIdentity } from '../../src/pos/sql-dialect.js';
import { skipOnBabelfish } from '../support/babelfish.js';
import { newPosDatabase, openPosDb } from '../support/databases.js';
import { BRANCH, startTestStack, STRICT_BRANCH, type ApiResponse, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;
const company = '0000000001';

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
});
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown, branch = BRANCH): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', branch), { body, headers: { 'idempotency-key': randomUUID() } });
}

const line = (idProducto: string, cantidad = 1, movimiento = 1) => ({ movimiento, idProducto, cantidad });

describe('identities after a close (shift-close rows 69-70, 136-137)', () => {
  it('an emptied tempcheques numbers its next account 1 again, and cheques continues from its highest folio', async ({ skip }) => {
    skipOnBabelfish(skip, 'reseedZero');
    const strict = stack.pos.get(STRICT_BRANCH)!.db;
    // Everything open is cancelled at the terminal, so the close leaves tempcheques empty.
    await strict.updateTable('tempcheques').set({ cancelado: true, idturno: 2 }).where('pagado', '=', false).execute();
    await strict.updateTable('tempcheques').set({ idturno: 2 }).where('idturno', '=', 0).execute();
    const res = await write('/turnos_cierre/{lk}', { idTurno: 2, estacion: 'CAJA1', idEmpresa: company }, STRICT_BRANCH);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await strict.selectFrom('tempcheques').select('folio').execute()).toEqual([]);
    const top = await strict
      .selectFrom('cheques')
      .select((eb) => eb.fn.max('folio').as('folio'))
      .executeTakeFirstOrThrow();

    const next = await write('/temp_ordenes/{lk}', orderBody(), STRICT_BRANCH);
    expect(next.body.folio).toBe(1);
    await strict.updateTable('tempcheques').set({ cancelado: true }).where('folio', '=', 1).execute();
    const shift = await write('/turnos_apertura/{lk}', { estacion: 'CAJA1', idEmpresa: company, cajero: 'CAJERO', fondo: 0 }, STRICT_BRANCH);
    await write('/turnos_cierre/{lk}', { idTurno: shift.body.idTurno, estacion: 'CAJA1', idEmpresa: company }, STRICT_BRANCH);
    const copied = await strict
      .selectFrom('cheques')
      .select('folio')
      .where('foliotempcheques', '=', 1)
      .where('idturno', '=', shift.body.idTurno)
      .executeTakeFirstOrThrow();
    expect(Number(copied.folio)).toBe(Number(top.folio) + 1);
  });

  it('cheques is reseeded after its highest folio before the archive copy (rows 69-70), so an identity left behind cannot break a close', async () => {
    // CAJA1's seeded shift closes with a quick sale and the seeded paid account: folios 4 and 5 follow the 3 seeded.
    await write('/ordenes/{lk}', orderBody({ idFormaDePago: 'EFE', productos: [line('1005')] }));
    expect((await write('/turnos_cierre/{lk}', { idTurno: 2, estacion: 'CAJA1', idEmpresa: company })).status).toBe(200);
    const next = await write('/turnos_apertura/{lk}', { estacion: 'CAJA1', idEmpresa: company, cajero: 'CAJERO', fondo: 0 });
    await write('/ordenes/{lk}', orderBody({ idFormaDePago: 'EFE', productos: [line('1005')] }));
    // As after a restored backup: the identity would hand out folios 1, 2, … that are taken.
    await reseedIdentity(db, 'cheques', 'folio', 0);
    const top = await db
      .selectFrom('cheques')
      .select((eb) => eb.fn.max('folio').as('folio'))
      .executeTakeFirstOrThrow();
    // More taken folios than a job's retries would step over by chance (each attempt takes one).
    expect(Number(top.folio)).toBeGreaterThanOrEqual(5);
    const res = await write('/turnos_cierre/{lk}', { idTurno: next.body.idTurno, estacion: 'CAJA1', idEmpresa: company });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.migratedCheques).toBe(1);
    const copied = await db.selectFrom('cheques').select('folio').where('idturno', '=', next.body.idTurno).orderBy('folio').execute();
    expect(Number(copied[0]!.folio)).toBe(Number(top.folio) + 1);
  });

  it("a tempcheques that never had a row (or was truncated) numbers its next account 0 after the close's reseed to 0, as SQL Server does for SR (row 137), and the API serves folio 0", async ({
    skip,
  }) => {
    skipOnBabelfish(skip, 'reseedZero');
    const strict = stack.pos.get(STRICT_BRANCH)!.db;
    const shift = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 0 }, STRICT_BRANCH);
    expect(await strict.selectFrom('tempcheques').select('folio').where('pagado', '=', false).where('cancelado', '=', false).execute()).toEqual([]);
    await sql.raw(dialectOf(strict) === 'mssql' ? 'truncate table tempcheques' : 'truncate table tempcheques restart identity').execute(strict);
    expect((await write('/turnos_cierre/{lk}', { idTurno: shift.body.idTurno, estacion: 'CAJA2', idEmpresa: company }, STRICT_BRANCH)).status).toBe(200);
    const first = await write('/temp_ordenes/{lk}', orderBody({ estacion: 'CAJA2' }), STRICT_BRANCH);
    expect(first.body.folio).toBe(0);
    const added = await write('/temp_ordenes/{lk}/0/productos', { productos: [line('1005')] }, STRICT_BRANCH);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect((await write('/temp_ordenes/{lk}', orderBody({ estacion: 'CAJA2' }), STRICT_BRANCH)).body.folio).toBe(1);
  });

  it('a reseed to 0 of a table that never had a row makes the next value 0, of one that had rows 1, on this server as on SQL Server', async ({ skip }) => {
    skipOnBabelfish(skip, 'reseedZero');
    const fresh = await openPosDb(await newPosDatabase('empty'));
    try {
      const freshSchema = await readPosSchema(fresh.db, fresh.dialect, pino({ level: 'silent' }));
      const insert = async () =>
        Number(
          (
            await fresh.db
              .insertInto('tempcheques')
              .values(freshSchema.completeRow('tempcheques', { fecha: new Date(), pagado: false, cancelado: false }))
              .returning('folio')
              .executeTakeFirstOrThrow()
          ).folio,
        );
      await reseedIdentity(fresh.db, 'tempcheques', 'folio', 0);
      expect(await insert()).toBe(0);
      await fresh.db.deleteFrom('tempcheques').execute();
      await reseedIdentity(fresh.db, 'tempcheques', 'folio', 0);
      expect(await insert()).toBe(1);
    } finally {
      await fresh.close();
    }
  });
});
