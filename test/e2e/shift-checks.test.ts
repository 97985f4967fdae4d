/**
 * What Soft Restaurant reads before it opens or closes a shift, where it changes the outcome
 * (order-lifecycle rows 13, 26, 28-30; shift-close rows 29, 66), and a declaration naming what
 * the branch does not have. SR's own reads from the traces (../shared/sr-traces/, read when
 * this runs) show what blocks.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localIso } from '../../src/pos/values.js';
import { statement } from '../support/sr-traces.js';
import { startTestStack, STRICT_BRANCH, type ApiResponse, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
/** The branch server's clock, when a test sets it. */
const branchClock: { now?: () => number } = {};
const company = '0000000001';

beforeAll(async () => {
  stack = await startTestStack({ agent: { wallClock: () => (branchClock.now ?? Date.now)() } });
});
afterAll(async () => {
  await stack?.stop();
});

const strict = () => stack.pos.get(STRICT_BRANCH)!.db;
/** Closes every shift left open, at `cierre`, so that a test opens its own. */
const closeOpenShifts = (cierre: Date) => strict().updateTable('turnos').set({ cierre }).where('cierre', 'is', null).execute();

function write(path: string, body: unknown, branch = STRICT_BRANCH): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', branch), { body, headers: { 'idempotency-key': randomUUID() } });
}

describe('what SR reads before it opens a shift (order-lifecycle rows 13, 26, 28-30)', () => {
  const open = (extra: Record<string, unknown> = {}) =>
    write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 100, ...extra }, STRICT_BRANCH);
  const lastShift = async () => Number((await strict().selectFrom('parametros').select('ultimoturno').executeTakeFirstOrThrow()).ultimoturno);

  it('a fixed cash float (configuracion.fondofijocaja) refuses another float and writes nothing', async () => {
    await strict().updateTable('configuracion').set({ fondofijocaja: 500 }).execute();
    try {
      const before = await lastShift();
      const refused = await open();
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ code: 'fixed_cash_float', fondo: 500 });
      expect(await lastShift()).toBe(before);
      const opened = await open({ fondo: 500 });
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      await strict()
        .updateTable('turnos')
        .set({ cierre: new Date(Date.now() - 1000) })
        .where('idturno', '=', opened.body.idTurno)
        .execute();
    } finally {
      await strict().updateTable('configuracion').set({ fondofijocaja: null }).execute();
    }
  });

  it('a shift of the company opened in the same second (row 26): the next one opens at the next second, once the clock reaches it', async () => {
    const second = Math.floor(Date.now() / 1000) * 1000;
    branchClock.now = () => second;
    try {
      await strict()
        .insertInto('turnos')
        .values(
          stack.agents.get(STRICT_BRANCH)!.pos.schema.completeRow('turnos', {
            idturno: 900,
            apertura: new Date(second),
            cierre: new Date(second),
            idestacion: 'OTRA',
            idempresa: company,
            idmesero: '',
          }),
        )
        .execute();
      // SR's own check finds it.
      const sameSecond = await sql
        .raw(statement('order-lifecycle', 26).replace("'2025-07-25T08:17:04'", `'${localIso(new Date(second))!.slice(0, 19)}'`))
        .execute(strict());
      expect(sameSecond.rows.map((r) => Number((r as { idturno: unknown }).idturno))).toContain(900);
      const opened = await open();
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      const row = await strict().selectFrom('turnos').select('apertura').where('idturno', '=', opened.body.idTurno).executeTakeFirstOrThrow();
      expect(localIso(row.apertura)).toBe(opened.body.apertura);
      expect(row.apertura!.getTime()).toBeGreaterThan(second);
      expect(
        await strict().selectFrom('turnos').select('idturno').where('apertura', '=', row.apertura).where('idempresa', '=', company).execute(),
      ).toHaveLength(1);
      // Not opened ahead of the clock.
      expect(Date.now()).toBeGreaterThanOrEqual(row.apertura!.getTime());
      await strict()
        .updateTable('turnos')
        .set({ cierre: new Date(second + 1000) })
        .where('idturno', '=', opened.body.idTurno)
        .execute();
    } finally {
      branchClock.now = undefined;
    }
  });

  it('a clock behind the last close or the latest opening (rows 28-30) is refused', async () => {
    branchClock.now = () => Date.parse('2001-02-03T12:00:00');
    try {
      const before = await lastShift();
      const refused = await open();
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('clock_behind_last_close');
      expect(await lastShift()).toBe(before);
    } finally {
      branchClock.now = undefined;
    }
  });
});

describe('two openings racing for the parametros lock', () => {
  it('the one that waited opens after the other, not refused as a clock behind it', async () => {
    await closeOpenShifts(new Date(Date.now() - 1000));
    const second = Math.floor(Date.now() / 1000) * 1000 + 1000;
    let clock = second;
    branchClock.now = () => clock;
    try {
      let opening: Promise<ApiResponse> | undefined;
      await strict()
        .transaction()
        .execute(async (trx) => {
          // Another opening holds the counter: it took its clock a second after this one and got the lock first.
          await trx.selectFrom('parametros').select('ultimoturno').forUpdate().execute();
          opening = write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 0 });
          await new Promise((resolve) => setTimeout(resolve, 500));
          clock = second + 1000;
          await trx
            .insertInto('turnos')
            .values(
              stack.agents.get(STRICT_BRANCH)!.pos.schema.completeRow('turnos', {
                idturno: 950,
                apertura: new Date(second + 1000),
                idestacion: 'OTRA',
                idempresa: company,
                idmesero: '',
              }),
            )
            .execute();
        });
      const opened = await opening!;
      expect(opened.status, opened.text).toBe(200);
      expect(Date.parse(opened.body.apertura)).toBeGreaterThanOrEqual(second + 1000);
    } finally {
      branchClock.now = undefined;
      // Back to the past, so the next tests' shifts open after these.
      await strict().deleteFrom('turnos').where('idturno', '=', 950).execute();
      await strict()
        .updateTable('turnos')
        .set({ apertura: new Date(Date.now() - 2000), cierre: new Date(Date.now() - 1000) })
        .where('apertura', '>=', new Date(second))
        .execute();
    }
  });
});

describe('a close with the clock behind the shift it closes', () => {
  it('is refused, rather than recording a close two minutes before the opening', async () => {
    await closeOpenShifts(new Date(Date.now() - 600_000));
    const opened = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 0 });
    expect(opened.status, opened.text).toBe(200);
    // As a terminal whose clock runs two minutes ahead of the branch server records it.
    const apertura = new Date(Math.floor(Date.now() / 1000) * 1000 + 120_000);
    await strict().updateTable('turnos').set({ apertura }).where('idturno', '=', opened.body.idTurno).execute();
    const close = () => write('/turnos_cierre/{lk}', { idTurno: opened.body.idTurno, estacion: 'CAJA2', idEmpresa: company });
    try {
      const refused = await close();
      expect(refused.status, refused.text).toBe(409);
      expect(refused.body).toMatchObject({ code: 'clock_behind_last_close', at: localIso(apertura) });
      expect((await strict().selectFrom('turnos').select('cierre').where('idturno', '=', opened.body.idTurno).executeTakeFirstOrThrow()).cierre).toBeNull();

      // Once the clock has reached the opening, the close goes through.
      branchClock.now = () => apertura.getTime();
      const closed = await close();
      expect(closed.status, closed.text).toBe(200);
      expect(closed.body.cierre).toBe(localIso(apertura));
    } finally {
      branchClock.now = undefined;
      // Back to the present, so the next tests' shifts open after it.
      await strict()
        .updateTable('turnos')
        .set({ apertura: new Date(Date.now() - 60_000), cierre: new Date(Date.now() - 1000) })
        .where('idturno', '=', opened.body.idTurno)
        .execute();
    }
  });
});

describe('what SR reads before it closes a shift (shift-close rows 29, 66)', () => {
  const schema = () => stack.agents.get(STRICT_BRANCH)!.pos.schema;
  const sr = (row: number, idTurno: number) => sql.raw(statement('shift-close', row).replace(/\b894\b/g, String(idTurno))).execute(strict());
  const close = (idTurno: number) => write('/turnos_cierre/{lk}', { idTurno, estacion: 'CAJA2', idEmpresa: company }, STRICT_BRANCH);
  const isOpen = async (idTurno: number) =>
    (await strict().selectFrom('turnos').select('cierre').where('idturno', '=', idTurno).executeTakeFirstOrThrow()).cierre === null;

  it('refuses a close while a check printed for the shift is unpaid, and one whose lines name products gone from the catalogue', async () => {
    await strict()
      .updateTable('turnos')
      .set({ cierre: new Date(Date.now() - 1000) })
      .where('idestacion', '=', 'CAJA2')
      .where('cierre', 'is', null)
      .execute();
    const opened = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 0 }, STRICT_BRANCH);
    const idTurno = opened.body.idTurno as number;

    // Printed and handed over, then reopened at a terminal: it carries the shift and is not paid.
    const printed = await write(
      '/temp_ordenes/{lk}',
      orderBody({ estacion: 'CAJA2', productos: [{ movimiento: 1, idProducto: '1001', cantidad: 1 }] }),
      STRICT_BRANCH,
    );
    await strict().updateTable('tempcheques').set({ impreso: true, idturno: idTurno }).where('folio', '=', printed.body.folio).execute();
    expect((await sr(66, idTurno)).rows).toHaveLength(1);
    const unpaid = await close(idTurno);
    expect(unpaid.status).toBe(409);
    expect(unpaid.body).toMatchObject({ code: 'printed_accounts_unpaid', folios: [printed.body.folio] });
    expect(await isOpen(idTurno)).toBe(true);
    await strict().updateTable('tempcheques').set({ cancelado: true }).where('folio', '=', printed.body.folio).execute();

    await strict()
      .insertInto('productos')
      .values(schema().completeRow('productos', { idproducto: 'ZZ01', descripcion: 'De temporada', idgrupo: 'BEB' }))
      .execute();
    await strict()
      .insertInto('productosdetalle')
      .values(
        schema().completeRow('productosdetalle', {
          idproducto: 'ZZ01',
          idempresa: company,
          precio: 10,
          impuesto1: 16,
          impuesto2: 0,
          impuesto3: 0,
          bloqueado: false,
        }),
      )
      .execute();
    const sale = await write(
      '/ordenes/{lk}',
      orderBody({ estacion: 'CAJA2', idFormaDePago: 'EFE', productos: [{ movimiento: 1, idProducto: 'ZZ01', cantidad: 1 }] }),
      STRICT_BRANCH,
    );
    expect(sale.body.idTurno).toBe(idTurno);
    await strict().deleteFrom('productos').where('idproducto', '=', 'ZZ01').execute();
    expect((await sr(29, idTurno)).rows).toHaveLength(1);
    const orphan = await close(idTurno);
    expect(orphan.status).toBe(409);
    expect(orphan.body).toMatchObject({ code: 'products_not_in_catalogue', lines: [{ folio: sale.body.folio, idProducto: 'ZZ01' }] });
    expect(await isOpen(idTurno)).toBe(true);

    await strict()
      .insertInto('productos')
      .values(schema().completeRow('productos', { idproducto: 'ZZ01', descripcion: 'De temporada', idgrupo: 'BEB' }))
      .execute();
    expect((await close(idTurno)).status).toBe(200);
  });

  it('closes over an account printed and not yet paid, as SR does: it carries no shift until paid, and is paid into the next', async () => {
    const opened = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 0 }, STRICT_BRANCH);
    expect(opened.status, opened.text).toBe(200);
    const created = await write(
      '/temp_ordenes/{lk}',
      orderBody({ estacion: 'CAJA2', productos: [{ movimiento: 1, idProducto: '1001', cantidad: 1 }] }),
      STRICT_BRANCH,
    );
    const folio = created.body.folio as number;
    expect((await write(`/temp_ordenes/{lk}/${folio}/imprimir`, {}, STRICT_BRANCH)).status).toBe(200);
    const account = () => strict().selectFrom('tempcheques').select(['impreso', 'pagado', 'idturno']).where('folio', '=', folio).executeTakeFirstOrThrow();
    // SR's read (row 66) does not see it: SR creates and prints an account with idturno 0 (order-lifecycle rows 91, 361).
    expect((await sr(66, opened.body.idTurno)).rows).toHaveLength(0);
    expect((await close(opened.body.idTurno)).status).toBe(200);
    expect(await account()).toMatchObject({ impreso: true, pagado: false, idturno: 0 });

    const next = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 0 }, STRICT_BRANCH);
    const total = created.body.totales.total as number;
    const paid = await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: total }] }, STRICT_BRANCH);
    expect(paid.status, paid.text).toBe(200);
    expect(await account()).toMatchObject({ pagado: true, idturno: next.body.idTurno });
    expect((await close(next.body.idTurno)).status).toBe(200);
  });

  it('refuses a declaration of a payment method the branch does not have, or one declared twice, and writes nothing', async () => {
    const opened = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 0 }, STRICT_BRANCH);
    const idTurno = opened.body.idTurno as number;
    const declare = (declaracion: unknown) => write('/turnos_cierre/{lk}', { idTurno, estacion: 'CAJA2', idEmpresa: company, declaracion }, STRICT_BRANCH);
    const unknown = await declare([
      { idFormaDePago: 'EFE', importe: 1 },
      { idFormaDePago: 'BTC', importe: 1 },
    ]);
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: 'payment_method_not_found', fields: ['declaracion.1.idFormaDePago'] });
    expect(JSON.stringify(unknown.body)).not.toContain('BTC');
    const twice = await declare([
      { idFormaDePago: 'EFE', importe: 1 },
      { idFormaDePago: 'efe', importe: 2 },
    ]);
    expect(twice.status).toBe(400);
    expect(await isOpen(idTurno)).toBe(true);
    expect(await strict().selectFrom('declaracioncajero').select('idturno').where('idturno', '=', idTurno).execute()).toEqual([]);
  });

  it('refuses a series the branch does not have, and writes nothing', async () => {
    const opened = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 0 }, STRICT_BRANCH);
    const idTurno = opened.body.idTurno as number;
    await write(
      '/ordenes/{lk}',
      orderBody({ estacion: 'CAJA2', serie: 'A', idFormaDePago: 'EFE', productos: [{ movimiento: 1, idProducto: '1001', cantidad: 1 }] }),
      STRICT_BRANCH,
    );
    const counters = () => strict().selectFrom('folios').select(['serie', 'ultimaorden', 'ultimofolioproduccion']).orderBy('serie').execute();
    const before = await counters();
    const res = await write('/turnos_cierre/{lk}', { idTurno, estacion: 'CAJA2', idEmpresa: company, serie: 'NOPE' }, STRICT_BRANCH);
    expect([res.status, res.body.code, res.body.field]).toEqual([422, 'series_not_found', 'serie']);
    expect(await isOpen(idTurno)).toBe(true);
    expect(await counters()).toEqual(before);
    expect((await close(idTurno)).status).toBe(200);
  });
});
