/**
 * What the API leaves, where SR's traces (../shared/sr-traces/, read when this runs) say what SR
 * does: SR's own statements are run where a test cites them; the rest asserts the values SR
 * writes. The statement-by-statement oracles are sr-oracle-writes and sr-oracle-reads. The demo
 * seed gives the branch a waiters' terminal (TERM1) selling on CAJA1's shift, kitchen monitors,
 * recipes with a warehouse and a dollar payment method.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstalledSchema } from '../../src/pos/columns.js';
import type { PosDb } from '../../src/pos/schema.js';
import { SYNC_CREATE, SYNC_ENTITY_SHIFT, SYNC_UPDATE } from '../../src/pos/sync-marks.js';
import { SR10 } from '../support/schema-variant.js';
import { srRead, statement, withValues } from '../support/sr-traces.js';
import { BRANCH, startTestStack, STRICT_BRANCH, type ApiResponse, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;
let schema: InstalledSchema;
const company = '0000000001';

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  schema = stack.agents.get(BRANCH)!.pos.schema;
});
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown, branch = BRANCH): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', branch), { body, headers: { 'idempotency-key': randomUUID() } });
}

const line = (idProducto: string, cantidad = 1, movimiento = 1) => ({ movimiento, idProducto, cantidad });

/** SR's statement at an order-lifecycle or shift-close row, with our values for its literals. */
function sr<T>(trace: 'order-lifecycle' | 'shift-close', row: number, values: Record<string, string | number>, on = db): Promise<T[]> {
  return srRead<T>(on, schema, withValues(statement(trace, row), values));
}

describe('shifts: the terminals find the shift the API opened', () => {
  it("opens the station's shift where SR's terminals look for it (order-lifecycle rows 34, 201), with SR's sync mark and sales log (37-38)", async () => {
    const res = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 100, idMesero: '02' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const found = await sr<{ idturno: string | number }>('order-lifecycle', 201, { "'DESKTOP-1601QUU'": "'CAJA2'", "'0000000001'": `'${company}'` });
    expect(found.map((r) => Number(r.idturno))).toEqual([res.body.idTurno]);
    const row = await db.selectFrom('turnos').selectAll().where('idturno', '=', res.body.idTurno).executeTakeFirstOrThrow();
    const log = await db.selectFrom('bitacoraEnvioVentas').selectAll().execute();
    expect(log.map((l) => l.fechaapertura?.getTime())).toContain(row.apertura!.getTime());
    if (!SR10) {
      // Row 37: the shift's own WorkspaceId, entity 16, created.
      const marks = await db.selectFrom('nsplatformcontrol').selectAll().where('WorkspaceId', '=', row.WorkspaceId!).execute();
      expect(marks).toEqual([expect.objectContaining({ EntityType: SYNC_ENTITY_SHIFT, OperationType: SYNC_CREATE, IsSync: false, Attempts: 0 })]);
    }
  });

  it("a terminal sells on its cash station's shift (order-lifecycle rows 509-510, 548): a quick sale at TERM1 is paid in CAJA1's shift", async () => {
    const res = await write('/ordenes/{lk}', orderBody({ estacion: 'TERM1', idFormaDePago: 'EFE', productos: [line('1005')] }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.idTurno).toBe(2);
    const header = await db.selectFrom('tempcheques').selectAll().where('folio', '=', res.body.folio).executeTakeFirstOrThrow();
    expect(header).toMatchObject({ estacion: 'TERM1', seriefolio: 'A', idarearestaurant: '03' });
    const turnDependent = await write('/temp_ordenes/{lk}', orderBody({ estacion: 'TERM1', turnDependent: true }));
    expect(turnDependent.status, JSON.stringify(turnDependent.body)).toBe(201);
  });
});

describe('accounts: one per table, as SR opens them', () => {
  it("gives a table account its table's area and no shift until it is paid (order-lifecycle row 91)", async () => {
    const open = await write('/temp_ordenes/{lk}', orderBody({ mesa: '6', idMesero: '01', productos: [line('3001')] }));
    const opened = await db
      .selectFrom('tempcheques')
      .select(['idarearestaurant', 'idturno', 'cierre'])
      .where('folio', '=', open.body.folio)
      .executeTakeFirstOrThrow();
    expect(opened).toMatchObject({ idarearestaurant: '01', cierre: null });
    expect(Number(opened.idturno)).toBe(0);
  });

  it('refuses a second open account at a table (order-lifecycle rows 87, 90) and writes nothing', async () => {
    const first = await write('/temp_ordenes/{lk}', orderBody({ mesa: 'T2', idMesero: '01' }));
    expect(first.status).toBe(201);
    // SR's own check finds it.
    const occupied = await sr<{ folio: string | number }>('order-lifecycle', 87, { "'22'": "'T2'" });
    expect(occupied.map((o) => Number(o.folio))).toEqual([first.body.folio]);
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('tempcheques')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    // The same table in another letter case, or with spaces around it, as SQL Server compares it.
    for (const mesa of ['t2', 'T2 ', ' T2', '\tT2']) {
      const again = await write('/temp_ordenes/{lk}', orderBody({ estacion: 'CAJA2', mesa, idMesero: '02' }));
      expect(again.status, JSON.stringify(mesa)).toBe(409);
      expect(again.body).toMatchObject({ code: 'table_occupied', folio: first.body.folio });
    }
    expect(await count()).toBe(before);
  });

  it('refuses a series the branch has no counters for, and writes nothing', async () => {
    const res = await write('/temp_ordenes/{lk}', orderBody({ serie: 'ZZ' }));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'series_not_found', field: 'serie' });
    expect(await db.selectFrom('folios').select('serie').where('serie', '=', 'ZZ').execute()).toEqual([]);
  });

  it("takes the station's series when none is sent", async () => {
    const res = await write('/temp_ordenes/{lk}', orderBody({ estacion: 'CAJA2' }));
    const header = await db.selectFrom('tempcheques').select('seriefolio').where('folio', '=', res.body.folio).executeTakeFirstOrThrow();
    expect(header.seriefolio).toBe('B');
  });
});

describe('kitchen rows (order-lifecycle rows 205-230)', () => {
  it('numbers the lines sent together for production, with a priority, on each product monitor, in the open shift', async () => {
    const before = await db.selectFrom('folios').select('ultimofolioproduccion').where('serie', '=', 'A').executeTakeFirstOrThrow();
    const order = await write('/temp_ordenes/{lk}', orderBody({ productos: [line('3001'), line('1101', 2, 2)] }));
    const more = await write(`/temp_ordenes/{lk}/${order.body.folio}/productos`, { productos: [line('2004')] });
    expect(more.status).toBe(200);
    const lines = await db
      .selectFrom('tempcheqdet')
      .select(['movimiento', 'folioproduccion', 'prioridadproduccion'])
      .where('foliodet', '=', order.body.folio)
      .orderBy('movimiento')
      .execute();
    const first = Number(before.ultimofolioproduccion) + 1;
    expect(lines.map((l) => Number(l.folioproduccion))).toEqual([first, first, first + 1]);
    const after = await db.selectFrom('folios').select('ultimofolioproduccion').where('serie', '=', 'A').executeTakeFirstOrThrow();
    expect(Number(after.ultimofolioproduccion)).toBe(first + 1);
    // Each on its product's monitor: the kitchen ('01') the food, the bar ('02') the beer.
    const kitchen = await db
      .selectFrom('productosenproduccion')
      .select(['idproducto', 'idturno_cierre', 'prioridad'])
      .where('idmonitor', '=', '01')
      .where('folio', '=', order.body.folio)
      .orderBy('movimiento')
      .execute();
    expect(kitchen.map((k) => [k.idproducto, Number(k.idturno_cierre)])).toEqual([
      ['3001', 2],
      ['2004', 2],
    ]);
    const bar = await db.selectFrom('productosenproduccion').select('idproducto').where('idmonitor', '=', '02').where('folio', '=', order.body.folio).execute();
    expect(bar.map((b) => b.idproducto)).toEqual(['1101']);
    expect(new Set(kitchen.map((k) => k.prioridad)).size).toBe(2);
    expect(lines[0]!.prioridadproduccion).toBe(kitchen[0]!.prioridad);
  });
});

describe('handheld devices (order-lifecycle rows 94-96, 209-220, 272)', () => {
  it('keeps cuentas and detallescuentas when devices are registered', async () => {
    const strict = stack.pos.get(STRICT_BRANCH)!.db;
    const strictSchema = stack.agents.get(STRICT_BRANCH)!.pos.schema;
    await strict
      .insertInto('registro_dispositivos')
      .values(
        strictSchema.completeRow('registro_dispositivos', {
          id_dispositivo: 'tablet-1',
          nombre_dispositivo: 'Tableta mesero',
          fecha: new Date(),
          ultima_actualizacion: new Date(),
        }),
      )
      .execute();
    const order = await write('/temp_ordenes/{lk}', orderBody({ mesa: '5', idMesero: '01', productos: [line('3001', 2)] }), STRICT_BRANCH);
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    const header = await strict.selectFrom('cuentas').selectAll().where('foliocuenta', '=', order.body.folio).executeTakeFirstOrThrow();
    expect(header).toMatchObject({ clavemesa: '5', clavemesero: '01', clavearea: '01', estacion: 'CAJA1', enviadosr: true, total: '178.0000' });
    const details = await strict.selectFrom('detallescuentas').selectAll().where('clavemesa', '=', '5').execute();
    expect(details.map((d) => [d.clave, d.cantidad, Number(d.movimiento), Number(d.idcomanda)])).toEqual([['3001', '2.0000', 1, 1]]);
    const added = await write(`/temp_ordenes/{lk}/${order.body.folio}/productos`, { productos: [line('1005')] }, STRICT_BRANCH);
    expect(added.status).toBe(200);
    const after = await strict.selectFrom('detallescuentas').select(['clave', 'idcomanda']).where('clavemesa', '=', '5').orderBy('movimiento').execute();
    expect(after.map((d) => [d.clave, Number(d.idcomanda)])).toEqual([
      ['3001', 1],
      ['1005', 2],
    ]);
    expect((await strict.selectFrom('cuentas').select('total').where('foliocuenta', '=', order.body.folio).executeTakeFirstOrThrow()).total).toBe('207.9000');
  });
});

describe('closing a shift as SR does (shift-close-flow.tsv)', () => {
  let idTurno: number;
  let closed: ApiResponse;
  const folios: Record<string, number> = {};

  beforeAll(async () => {
    // A shift of its own on CAJA2, with: a dollar sale, a cash sale at its table with a kitchen row and side rows, an open account.
    const open = await db.selectFrom('turnos').select('idturno').where('idestacion', '=', 'CAJA2').where('cierre', 'is', null).execute();
    for (const s of open) await write('/turnos_cierre/{lk}', { idTurno: Number(s.idturno), estacion: 'CAJA2', idEmpresa: company });
    idTurno = (await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 0 })).body.idTurno;

    folios.dollars = (
      await write('/ordenes/{lk}', orderBody({ estacion: 'CAJA2', idFormaDePago: 'USD', productos: [line('3001'), line('1005', 1, 2)] }))
    ).body.folio;
    folios.cash = (await write('/ordenes/{lk}', orderBody({ estacion: 'CAJA2', mesa: '4', idFormaDePago: 'EFE', productos: [line('3001', 2)] }))).body.folio;
    await db.insertInto('tempcheqpedidos').values({ foliocheque: folios.cash, idpedido: 77 }).execute();
    await db
      .insertInto('tempnumerostarjetas')
      .values(schema.completeRow('tempnumerostarjetas', { foliocuenta: folios.cash, idformadepago: 'EFE', numerotarjeta: '4242', importe: 10 }))
      .execute();
    folios.open = (await write('/temp_ordenes/{lk}', orderBody({ estacion: 'CAJA2', mesa: '3', productos: [line('3002')] }))).body.folio;

    closed = await write('/turnos_cierre/{lk}', {
      idTurno,
      estacion: 'CAJA2',
      idEmpresa: company,
      declaracion: [
        { idFormaDePago: 'EFE', importe: 400 },
        { idFormaDePago: 'TAR', importe: 12.5 },
      ],
    });
  });

  it("answers what the shift took by tender as SR's cash cut adds it up, a dollar sale counted in pesos", () => {
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    // 89.00 + 29.90 paid in dollars, and 178.00 in cash: 296.90 taken in cash of either currency.
    expect(closed.body).toMatchObject({ idTurno, migratedCheques: 2, efectivo: 296.9, tarjeta: 0 });
  });

  it("stores a dollar payment in dollars, which SR's cash cut (row 195) adds up to the sale's total in pesos", async () => {
    const sale = await db
      .selectFrom('cheques')
      .select(['folio', 'total'])
      .where('foliotempcheques', '=', folios.dollars!)
      .where('idturno', '=', idTurno)
      .executeTakeFirstOrThrow();
    const payment = await db.selectFrom('chequespagos').select(['importe', 'tipodecambio']).where('folio', '=', sale.folio).executeTakeFirstOrThrow();
    expect(payment).toMatchObject({ importe: '6.8928', tipodecambio: '17.2500' });
    const [cut] = await sr<{ importe: string | number }>('shift-close', 195, { 'chequespagos.folio=24475': `chequespagos.folio=${sale.folio}` });
    // 6.8928 dollars at 17.25 are 118.9008 pesos: the sale's 118.90 to the cent. SR's own sum
    // keeps the 4 decimals; the API's amounts are rounded to the cent.
    expect(Number(cut!.importe)).toBeCloseTo(Number(sale.total), 2);
  });

  it("sums the cashier's declaration in the shift's cash columns (row 95), 0 for what was not declared", async () => {
    const shift = await db.selectFrom('turnos').selectAll().where('idturno', '=', idTurno).executeTakeFirstOrThrow();
    expect(shift).toMatchObject({
      efectivo: '400.0000',
      tarjeta: '12.5000',
      vales: '0.0000',
      credito: '0.0000',
      corte_enviado: false,
      eliminartemporalesencierre: true,
      procesado: true,
    });
    expect(shift.cierre).toBeInstanceOf(Date);
  });

  it('archives every side table, pointed at the new folios and processed, and leaves no temporary row of the closed accounts', async () => {
    const history = await db.selectFrom('cheques').select(['folio', 'foliotempcheques']).where('idturno', '=', idTurno).execute();
    const newFolio = (temp: number) => Number(history.find((h) => Number(h.foliotempcheques) === temp)!.folio);
    expect(await db.selectFrom('cheqpedidos').selectAll().where('idturno_cierre', '=', idTurno).execute()).toEqual([
      expect.objectContaining({ idpedido: 77, procesado: true }),
    ]);
    expect(Number((await db.selectFrom('cheqpedidos').select('foliocheque').where('idturno_cierre', '=', idTurno).executeTakeFirstOrThrow()).foliocheque)).toBe(
      newFolio(folios.cash!),
    );
    const cards = await db.selectFrom('numerostarjetas').selectAll().where('idturno_cierre', '=', idTurno).execute();
    expect(cards.map((c) => [Number(c.foliocuenta), c.numerotarjeta, c.procesado])).toEqual([[newFolio(folios.cash!), '4242', true]]);
    const lines = await db
      .selectFrom('cheqdet')
      .select(['procesado', 'idturno_cierre'])
      .where(
        'foliodet',
        'in',
        history.map((h) => Number(h.folio)),
      )
      .execute();
    expect(lines.every((l) => l.procesado === true && Number(l.idturno_cierre) === idTurno)).toBe(true);

    const closedFolios = [folios.dollars!, folios.cash!];
    for (const [table, column] of [
      ['tempcheques', 'folio'],
      ['tempcheqdet', 'foliodet'],
      ['tempchequespagos', 'folio'],
      ['tempcheqpedidos', 'foliocheque'],
      ['tempnumerostarjetas', 'foliocuenta'],
      ['productosenproduccion', 'folio'],
      ['mesasasignadas', 'folio'],
    ] as const) {
      const left = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(closedFolios)})`.execute(db);
      expect(Number(left.rows[0]!.n), table).toBe(0);
    }
    // The open account stays, with its kitchen row.
    expect(await db.selectFrom('tempcheques').select('folio').where('folio', '=', folios.open!).execute()).toHaveLength(1);
    expect(await db.selectFrom('productosenproduccion').select('folio').where('folio', '=', folios.open!).execute()).toHaveLength(1);
  });

  it("deducts the recipes of what was sold from SR's stock (rows 127-133, 232-237), between SR's two audit entries (229, 242)", async () => {
    expect(await db.selectFrom('inventariopendiente').selectAll().where('idturno', '=', idTurno).execute()).toEqual([]);
    const rows = await db.selectFrom('movsinv').selectAll().where('idturno', '=', idTurno).orderBy('idinsumo').execute();
    // Three tacos al pastor (3 tortillas and 0.15 kg each) and one cola, from warehouse 01 at the average cost.
    expect(rows.map((r) => [r.idconcepto, r.idinsumo, r.cantidad, r.costo, r.idalmacen])).toEqual([
      ['SPV', 'PASTOR', '-0.4500', '160.0000', '01'],
      ['SPV', 'REFRESCO', '-1.0000', '9.5000', '01'],
      ['SPV', 'TORTILLA', '-9.0000', '0.8000', '01'],
    ]);
    const audit = await db.selectFrom('bitacorasistema').selectAll().where('valores', '=', `Turno: ${idTurno}`).orderBy('bitacorasistemaid').execute();
    expect(audit.map((a) => [a.evento, a.usuario, a.estacion, a.idempresa, a.usuariosolicita])).toEqual([
      ['Aplicando Insumos pendientes por descargar', 'CAJERO', 'CAJA2', company, ''],
      ['Aplicando insumos pendientes por descargar', 'CAJERO', 'CAJA2', company, ''],
    ]);
  });

  it.skipIf(SR10)('queues the shift again for National Soft once it was synced (row 247; SR 10 has no WorkspaceId)', async () => {
    const shift = await db.selectFrom('turnos').select('WorkspaceId').where('idturno', '=', idTurno).executeTakeFirstOrThrow();
    const marks = await db.selectFrom('nsplatformcontrol').selectAll().where('WorkspaceId', '=', shift.WorkspaceId!).execute();
    // Never synced since it opened: still the one creation mark.
    expect(marks).toEqual([expect.objectContaining({ EntityType: SYNC_ENTITY_SHIFT, OperationType: SYNC_CREATE })]);
    expect(SYNC_UPDATE).toBe(2);
  });

  it("restarts the station's series only (row 96)", async () => {
    const series = await db.selectFrom('folios').select(['serie', 'ultimaorden']).where('serie', 'in', ['A', 'B']).orderBy('serie').execute();
    expect(series.map((s) => [s.serie, Number(s.ultimaorden)])).toEqual([
      ['A', expect.any(Number)],
      ['B', 0],
    ]);
    expect(Number(series[0]!.ultimaorden)).toBeGreaterThan(0);
  });
});
