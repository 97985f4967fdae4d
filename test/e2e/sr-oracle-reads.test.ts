/**
 * SR's own reads as the oracle of what we leave: statements from ../shared/sr-traces/ (read when
 * this runs), with our values in place of the trace's literals, run on the rows a shift lived
 * through the API left (test/support/sr-scenario.ts), and what SR would show asserted: the
 * terminals' shift lookup, the kitchen and handheld rows as SR addresses them, the cash cut of
 * an open and of a closed shift, the stock SR would still have to apply.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstalledSchema } from '../../src/pos/columns.js';
import type { PosDb } from '../../src/pos/schema.js';
import { COMPANY, DECLARATION, liveShift, type Scenario } from '../support/sr-scenario.js';
import { srRead, statement, withValues, type TraceName } from '../support/sr-traces.js';
import { BRANCH, startTestStack, STRICT_BRANCH, type ApiResponse, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;
let schema: InstalledSchema;
let scenario: Scenario;

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  schema = stack.agents.get(BRANCH)!.pos.schema;
  scenario = await liveShift(stack, BRANCH);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown, branch = BRANCH): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', branch), { body, headers: { 'idempotency-key': randomUUID() } });
}

/** SR's statement at a trace row, with our values for its literals, run here. */
function sr<T>(trace: TraceName, row: number, values: Record<string, string | number>, on = db): Promise<T[]> {
  return srRead<T>(on, schema, withValues(statement(trace, row), values));
}

const num = (v: unknown) => Number(v ?? 0);
const cents = (v: unknown) => Math.round(num(v) * 100);

async function shiftRecord(idTurno: number) {
  const res = await stack.api('GET', `/turnos/${BRANCH}?search=${idTurno}`);
  return (res.body.data as Array<Record<string, unknown>>).find((s) => s.idTurno === idTurno)!;
}

/** The four per-tender sums and the two tip sums SR computes for one check (rows 577-582 / 195-200). */
async function srCheckSums(trace: TraceName, first: number, folio: number) {
  const table = trace === 'order-lifecycle' ? 'tempchequespagos' : 'chequespagos';
  const literal = `${table}.folio=${trace === 'order-lifecycle' ? 1 : 24475}`;
  const one = async (row: number) => Object.values((await sr<Record<string, unknown>>(trace, row, { [literal]: `${table}.folio=${folio}` }))[0] ?? {})[0];
  return {
    efectivo: await one(first),
    tarjeta: await one(first + 1),
    vales: await one(first + 2),
    otros: await one(first + 3),
    propina: await one(first + 4),
    propinatarjeta: await one(first + 5),
  };
}

describe('an open shift, as SR reads it', () => {
  it("a terminal finds the shift it sells on as SR's terminals look it up (order-lifecycle rows 83, 201)", async () => {
    const [terminal] = await sr<{ cajacomandero: string }>('order-lifecycle', 83, { "'DESKTOP-7'": "'TERM1'" });
    expect(terminal!.cajacomandero.trim()).toBe('CAJA1');
    const lookup = (station: string) =>
      sr<{ idturno: unknown }>('order-lifecycle', 201, { "'DESKTOP-1601QUU'": `'${station}'`, "'0000000001'": `'${COMPANY}'` });
    expect((await lookup('CAJA1')).map((r) => num(r.idturno))).toEqual([2]);
    expect((await lookup('CAJA2')).map((r) => num(r.idturno))).toEqual([scenario.idTurno]);
    // A sale paid at CAJA2 carries the shift SR's lookup finds (row 548 writes what 510 found).
    const quick = await db.selectFrom('tempcheques').select('idturno').where('folio', '=', scenario.quick).executeTakeFirstOrThrow();
    expect(num(quick.idturno)).toBe(scenario.idTurno);
  });

  it("a shift opened with a waiter where the branch keeps shifts per waiter is still found by SR's lookup (order-lifecycle row 4)", async () => {
    const strict = stack.pos.get(STRICT_BRANCH)!.db;
    await strict.updateTable('parametros3').set({ turnoxmesero: true }).execute();
    const opened = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: COMPANY, cajero: 'CAJERO', fondo: 0, idMesero: '02' }, STRICT_BRANCH);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const found = await sr<{ idturno: unknown }>('order-lifecycle', 4, { "'DESKTOP-1601QUU'": "'CAJA2'", "'0000000001'": `'${COMPANY}'` }, strict);
    expect(found.map((r) => num(r.idturno))).toEqual([opened.body.idTurno]);
    expect(opened.body.idMesero).toBe('');
  });

  it('kitchen rows: the address SR gives a line (folio, movimiento, product: order-lifecycle rows 228-229) finds only live rows', async () => {
    const folio = scenario.cancelled;
    const lines = await sr<{ movimiento: unknown }>('order-lifecycle', 228, { 'foliodet=1': `foliodet=${folio}` });
    expect(lines.map((l) => num(l.movimiento))).toEqual([1, 2]);
    const where = /WHERE[\s\S]*$/i.exec(statement('order-lifecycle', 229))![0];
    for (const l of lines) {
      const movimiento = num(l.movimiento);
      const detail = await db
        .selectFrom('tempcheqdet')
        .select('idproducto')
        .where('foliodet', '=', folio)
        .where('movimiento', '=', movimiento)
        .executeTakeFirstOrThrow();
      const address = withValues(where, { 'foliodet=1': `foliodet=${folio}`, 'movimiento=1': `movimiento=${movimiento}`, "'03004'": `'${detail.idproducto}'` });
      expect(await srRead(db, schema, `select * from tempcheqdet ${address}`)).toHaveLength(1);
      const kitchen = await srRead<{ cancelado: boolean | null }>(db, schema, `select * from productosenproduccion ${address.replace('foliodet=', 'folio=')}`);
      expect(kitchen.length, `line ${movimiento}`).toBeGreaterThan(0);
      expect(kitchen.filter((k) => k.cancelado === true)).toEqual([]);
    }
    // The cancelled plate stays on the monitor, cancelled, at a line number no line has.
    const cancelled = await db
      .selectFrom('productosenproduccion')
      .select(['movimiento', 'idproducto'])
      .where('folio', '=', folio)
      .where('cancelado', '=', true)
      .execute();
    expect(cancelled.map((c) => [num(c.movimiento), c.idproducto])).toEqual([[0, '3001']]);
  });

  it('handheld rows: a table account is on the devices (rows 209, 218); a quick sale is not, and leaves nothing a later account at its table would show', async () => {
    const sendings = await sr<{ idcomanda: unknown }>('order-lifecycle', 209, { '1.000000': scenario.table });
    expect(num(sendings[0]!.idcomanda)).toBe(1);
    expect(num((await sr<{ contador: unknown }>('order-lifecycle', 218, { "'22'": "'4'" }))[0]!.contador)).toBe(1);

    expect(num((await sr<{ contador: unknown }>('order-lifecycle', 218, { "'22'": "'6'" }))[0]!.contador)).toBe(0);
    expect(await db.selectFrom('detallescuentas').select('clave').where('clavemesa', 'in', ['6', '']).execute()).toEqual([]);
    const later = await write(
      '/temp_ordenes/{lk}',
      orderBody({
        estacion: 'CAJA2',
        mesa: '6',
        productos: [{ movimiento: 1, idProducto: '2004', cantidad: 1 }],
      }),
    );
    expect(later.status).toBe(201);
    expect(num((await sr<{ idcomanda: unknown }>('order-lifecycle', 209, { '1.000000': later.body.folio }))[0]!.idcomanda)).toBe(1);
    expect((await db.selectFrom('detallescuentas').select('clave').where('clavemesa', '=', '6').execute()).map((d) => d.clave)).toEqual(['2004']);
  });

  it("the cash cut of the open shift is SR's sum of its paid checks (order-lifecycle rows 577-582), in the shift list", async () => {
    const totals = { efectivo: 0, tarjeta: 0, vales: 0, otros: 0 };
    for (const folio of [scenario.quick, scenario.quickCash, scenario.paid]) {
      const sums = await srCheckSums('order-lifecycle', 577, folio);
      const header = await db.selectFrom('tempcheques').selectAll().where('folio', '=', folio).executeTakeFirstOrThrow();
      // What SR's own recomputation (row 585) would store is what we stored.
      for (const [column, value] of Object.entries(sums)) expect(cents(header[column as keyof typeof header]), `${folio}.${column}`).toBe(cents(value));
      for (const t of ['efectivo', 'tarjeta', 'vales', 'otros'] as const) totals[t] += cents(sums[t]);
    }
    const listed = await shiftRecord(scenario.idTurno);
    expect(listed).toMatchObject({
      efectivo: totals.efectivo / 100,
      tarjeta: totals.tarjeta / 100,
      vales: totals.vales / 100,
      credito: totals.otros / 100,
      declaracion: null,
    });
    expect(totals.efectivo).toBeGreaterThan(0);
  });
});

describe('the shift closed, as SR reads it', () => {
  beforeAll(async () => {
    expect((await scenario.close()).status).toBe(200);
  }, 60_000);

  it("each archived check's payment sums are SR's (shift-close rows 195-200), and the shift's takings are their sum", async () => {
    const checks = await db.selectFrom('cheques').selectAll().where('idturno', 'in', [1, scenario.idTurno]).execute();
    const taken = { efectivo: 0, tarjeta: 0, vales: 0, credito: 0 };
    for (const check of checks) {
      const sums = await srCheckSums('shift-close', 195, Number(check.folio));
      // SR recomputes the archived check and stores it (rows 203-204): it finds what is there.
      for (const [column, value] of Object.entries(sums)) expect(cents(check[column as keyof typeof check]), `${check.folio}.${column}`).toBe(cents(value));
      if (Number(check.idturno) === scenario.idTurno && check.pagado && !check.cancelado) {
        taken.efectivo += cents(sums.efectivo);
        taken.tarjeta += cents(sums.tarjeta);
        taken.vales += cents(sums.vales);
        taken.credito += cents(sums.otros);
      }
    }
    const listed = await shiftRecord(scenario.idTurno);
    expect(listed).toMatchObject({ efectivo: taken.efectivo / 100, tarjeta: taken.tarjeta / 100, vales: taken.vales / 100, credito: taken.credito / 100 });
  });

  it("the cashier's declaration is SR's declaracioncajero rows, summed in the shift's columns that SR's shift list reads (shift-close row 288)", async () => {
    const rows = await db.selectFrom('declaracioncajero').selectAll().where('idturno', '=', scenario.idTurno).orderBy('idformadepago').execute();
    expect(rows.map((r) => [r.idformadepago, r.importedeclarado, r.tipodecambio, num(r.tipo)])).toEqual([
      ['EFE', '400.5000', '1.0000', 1],
      ['TAR', '100.0000', '1.0000', 2],
      ['USD', '10.0000', '17.2500', 1],
    ]);
    const [shift] = await sr<Record<string, unknown>>('shift-close', 288, { "'DESKTOP-1601QUU'": "'CAJA2'" }).then((all) =>
      all.filter((s) => num(s.idturno) === scenario.idTurno),
    );
    // 400.50 + 10 dollars at 17.25 in cash, 100 by card.
    expect([shift!.efectivo, shift!.tarjeta, shift!.vales, shift!.credito].map(cents)).toEqual([57300, 10000, 0, 0]);
    expect((await shiftRecord(scenario.idTurno)).declaracion).toEqual({ efectivo: 573, tarjeta: 100, vales: 0, credito: 0 });
    expect(DECLARATION).toHaveLength(3);
  });

  it("leaves nothing for SR's stock screen to apply (shift-close rows 232-233): the sold recipes and what was pending are stock movements", async () => {
    expect(await sr('shift-close', 232, { "'0000000001'": `'${COMPANY}'` })).toEqual([]);
    expect(await sr('shift-close', 233, {})).toEqual([]);
    const moves = await db.selectFrom('movsinv').selectAll().orderBy('idturno').orderBy('idinsumo').execute();
    expect(moves.map((m) => [num(m.idturno), m.idconcepto, m.idinsumo, m.cantidad, m.idalmacen])).toEqual([
      [1, 'SPV', 'CAFE', '-0.0300', '01'],
      // The dollar sale's two plates (3 tortillas and 0.15 kg each) and cola, the cash sale's
      // coffee, the paid table account's two plates.
      [scenario.idTurno, 'SPV', 'CAFE', '-0.0150', '01'],
      [scenario.idTurno, 'SPV', 'PASTOR', '-0.6000', '01'],
      [scenario.idTurno, 'SPV', 'REFRESCO', '-1.0000', '01'],
      [scenario.idTurno, 'SPV', 'TORTILLA', '-12.0000', '01'],
    ]);
    const audit = await db.selectFrom('bitacorasistema').selectAll().where('valores', '=', `Turno: ${scenario.idTurno}`).orderBy('bitacorasistemaid').execute();
    expect(audit.map((a) => [a.evento, a.usuario, a.estacion, a.idempresa, a.usuariosolicita])).toEqual([
      ['Aplicando Insumos pendientes por descargar', 'CAJERO', 'CAJA2', COMPANY, ''],
      ['Aplicando insumos pendientes por descargar', 'CAJERO', 'CAJA2', COMPANY, ''],
    ]);
    // Finished elaborations are left to SR (rows 253-254).
    expect((await db.selectFrom('insumoselaboracion').select('aplicado').executeTakeFirstOrThrow()).aplicado).toBe(false);
  });

  it('with configuracion.nodescargarinventario, the close queues and applies nothing and writes no stock entry', async () => {
    const strict = stack.pos.get(STRICT_BRANCH)!.db;
    await strict.updateTable('configuracion').set({ nodescargarinventario: true }).execute();
    const sale = await write(
      '/ordenes/{lk}',
      orderBody({ idFormaDePago: 'EFE', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }),
      STRICT_BRANCH,
    );
    expect(sale.body.idTurno).toBe(2);
    const closed = await write('/turnos_cierre/{lk}', { idTurno: 2, estacion: 'CAJA1', idEmpresa: COMPANY }, STRICT_BRANCH);
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    expect(await sr('shift-close', 232, { "'0000000001'": `'${COMPANY}'` }, strict)).toEqual([]);
    expect(await strict.selectFrom('movsinv').selectAll().execute()).toEqual([]);
    expect(await strict.selectFrom('bitacorasistema').select('evento').where('valores', '=', 'Turno: 2').execute()).toEqual([]);
  });
});
