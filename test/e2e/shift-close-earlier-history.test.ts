/**
 * A shift close when the history tables already hold earlier accounts whose temporary folios
 * (`cheques.foliotempcheques`) are those of the accounts now closing, as on every branch once a
 * close has emptied tempcheques and SR numbered its accounts from 1 again (shift-close row 137).
 * The close finds what it copied by `cheques` folio (shift-archive.ts, `Archived`), so the
 * earlier history stays as it was and each copy carries only its own lines and payments.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb, PosTable } from '../../src/pos/schema.js';
import { PosFixtures } from '../support/fixtures.js';
import { orderBody } from '../support/order-body.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';

let stack: TestStack;
let db: PosDb;
let fixtures: PosFixtures;
const company = '0000000001';

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  fixtures = await PosFixtures.for(db);
});
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': randomUUID() } });
}

const line = (idProducto: string, cantidad = 1, movimiento = 1) => ({ movimiento, idProducto, cantidad });

type Row = Record<string, unknown>;

/** Each history table, the temporary table a close copies into it, and the column naming the account in both. */
const HISTORY = [
  { table: 'cheques', temp: 'tempcheques', folio: 'folio', marks: ['idturno', 'foliotempcheques'] },
  { table: 'cheqdet', temp: 'tempcheqdet', folio: 'foliodet', marks: ['idturno_cierre', 'procesado'] },
  { table: 'chequespagos', temp: 'tempchequespagos', folio: 'folio', marks: ['idturno_cierre', 'procesado'] },
] as const satisfies ReadonlyArray<{ table: PosTable; temp: PosTable; folio: string; marks: readonly string[] }>;

async function rowsOf(table: PosTable): Promise<Row[]> {
  return db.selectFrom(table).selectAll().execute();
}

/** Whole rows, compared as text: every column, its type and its value. */
const asText = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).sort();

describe('a close after an earlier shift whose accounts had the same temporary folios', () => {
  it('leaves every earlier history row as it was and copies exactly the closing accounts, each with its own lines and payments', async () => {
    // Shift 2 at CAJA1 holds the seed's paid account; it gets a cash and a card sale and a cancelled account.
    expect((await write('/ordenes/{lk}', orderBody({ idFormaDePago: 'EFE', productos: [line('3001'), line('1005', 2, 2)] }))).status).toBe(201);
    expect((await write('/ordenes/{lk}', orderBody({ idFormaDePago: 'TAR', productos: [line('1005', 3)] }))).status).toBe(201);
    const cancelled = await write('/temp_ordenes/{lk}', orderBody({ productos: [line('3002')] }));
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(201);
    expect((await write(`/temp_ordenes/{lk}/${cancelled.body.folio}/cancelar`, { razon: 'Cliente se fue' })).status).toBe(200);

    const temp = await rowsOf('tempcheques');
    const folios = (rows: Row[]) => rows.map((r) => Number(r.folio)).sort((a, b) => a - b);
    const closing = folios(temp.filter((t) => t.pagado || t.cancelado));
    const open = folios(temp.filter((t) => !t.pagado && !t.cancelado));
    expect([closing.length, open.length]).toEqual([4, 2]);

    // The earlier shift's accounts had these same temporary folios, the first one on two earlier days.
    const earlier = new Date(Date.now() - 2 * 86_400_000);
    for (const [i, folio] of [...closing, ...open, closing[0]!].entries()) {
      await fixtures.closedCopyOf(
        { folio },
        {
          idturno: 1,
          numcheque: 900 + i,
          fecha: earlier,
          cierre: earlier,
          pagado: true,
          impreso: true,
          lines: [{ idproducto: '1001', cantidad: 4 }, { idproducto: '4002' }],
          pagos: [{ idformadepago: 'VAL', importe: '10.00' }, { idformadepago: 'EFE' }],
        },
      );
    }
    const before = new Map(await Promise.all(HISTORY.map(async (h) => [h.table, await rowsOf(h.table)] as const)));
    const earlierFolios = new Set(folios(before.get('cheques')!));
    const tempBefore = new Map(await Promise.all(HISTORY.map(async (h) => [h.temp, await rowsOf(h.temp)] as const)));

    const res = await write('/turnos_cierre/{lk}', { idTurno: 2, estacion: 'CAJA1', idEmpresa: company });
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    const after = new Map(await Promise.all(HISTORY.map(async (h) => [h.table, await rowsOf(h.table)] as const)));
    for (const h of HISTORY) {
      // Nothing changed, deleted or added under an earlier account.
      const kept = after.get(h.table)!.filter((r) => earlierFolios.has(Number(r[h.folio])));
      expect(asText(kept), h.table).toEqual(asText(before.get(h.table)!));
    }

    const copied = after.get('cheques')!.filter((r) => !earlierFolios.has(Number(r.folio)));
    expect(res.body.migratedCheques).toBe(closing.length);
    expect(copied.map((c) => Number(c.foliotempcheques)).sort((a, b) => a - b)).toEqual(closing);
    expect(copied.every((c) => Number(c.idturno) === 2)).toBe(true);
    const historyFolio = new Map(copied.map((c) => [Number(c.foliotempcheques), Number(c.folio)]));
    for (const h of HISTORY) {
      // Every column the copy carries over, the account named by its history folio; numbers as
      // text, for a column can be an int in the temporary table and a bigint (read as a string) in history.
      const columns = fixtures.schema.sharedColumns(h.temp, h.table, [h.folio, ...h.marks]);
      const value = (v: unknown) => (typeof v === 'number' || typeof v === 'bigint' ? String(v) : v);
      const carried = (row: Row, folio: number) => JSON.stringify([folio, ...columns.map((c) => value(row[c]))]);
      const expected = tempBefore
        .get(h.temp)!
        .filter((r) => closing.includes(Number(r[h.folio])))
        .map((r) => carried(r, historyFolio.get(Number(r[h.folio]))!));
      const added = after.get(h.table)!.filter((r) => !earlierFolios.has(Number(r[h.folio])));
      expect(expected.length, h.table).toBeGreaterThan(0);
      expect(added.map((r) => carried(r, Number(r[h.folio]))).sort(), h.table).toEqual(expected.sort());
    }

    // The open accounts share their temporary folios with earlier history too, and stay as they were.
    for (const h of HISTORY) {
      const left = await rowsOf(h.temp);
      expect(asText(left), h.temp).toEqual(asText(tempBefore.get(h.temp)!.filter((r) => open.includes(Number(r[h.folio])))));
    }
  });
});
