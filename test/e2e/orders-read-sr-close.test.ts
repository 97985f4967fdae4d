/**
 * Soft Restaurant closes a shift in steps (sr-traces/shift-close-flow.tsv): one transaction copies
 * the accounts into the history tables and sets the shift's `cierre` (rows 74-98), their lines
 * and payments still under the folio they had while open (`foliotempcheques`) and tagged with the
 * shift (`idturno_cierre`); only then does it point them at the new folios, one autocommitted
 * UPDATE per table (rows 101-102, matching `idturno_cierre = cheques.idturno`). The temporary
 * folios start again at 1 after every close, so between those commits the lines of the account
 * being archived sit under the folio of an old account of the branch's history. A read then must
 * not give that old account the new one's lines or payments, and should give the new account its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PosFixtures, type WrittenAccount } from '../support/fixtures.js';
import { local } from '../support/order-history.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let old: WrittenAccount;
let archived: WrittenAccount;
let legacy: WrittenAccount;
let swapped: [WrittenAccount, WrittenAccount];

type Order = { folio: number; productos: Array<{ idProducto: string; folio: number }>; pagos: Array<{ idFormaDePago: string; importe: number }> };

beforeAll(async () => {
  stack = await startTestStack();
  const db = stack.pos.get(BRANCH)!.db;
  const f = await PosFixtures.for(db);
  await f.clearAccounts();
  await f.shift({ idturno: 10, apertura: local(2026, 1, 10, 8), cierre: local(2026, 1, 10, 23) });
  await f.shift({ idturno: 20, apertura: local(2026, 2, 10, 8), cierre: local(2026, 2, 10, 23) });
  old = await f.closedOrder({ idturno: 10, numcheque: 1, fecha: local(2026, 1, 10, 12), lines: [{ idproducto: '3001' }], pagos: [{ idformadepago: 'EFE' }] });
  // Rows some earlier close tagged otherwise are still the account's own: no other account waits for them.
  legacy = await f.closedOrder({
    idturno: 10,
    numcheque: 3,
    fecha: local(2026, 1, 10, 13),
    lines: [{ idproducto: '4001' }],
    pagos: [{ idformadepago: 'EFE' }],
  });
  await db.updateTable('cheqdet').set({ idturno_cierre: 0 }).where('foliodet', '=', legacy.folio).execute();
  // The account SR is archiving: open as temporary folio `old.folio`, its rows not yet pointed at its new folio.
  archived = await f.closedCopyOf(old, {
    idturno: 20,
    numcheque: 2,
    pagado: true,
    cierre: local(2026, 2, 10, 13),
    fecha: local(2026, 2, 10, 12),
    lines: [{ idproducto: '1005' }, { idproducto: '2001' }],
    pagos: [{ idformadepago: 'TAR' }],
  });
  await db.updateTable('cheqdet').set({ foliodet: old.folio, procesado: false }).where('foliodet', '=', archived.folio).execute();
  await db.updateTable('chequespagos').set({ folio: old.folio, procesado: false }).where('folio', '=', archived.folio).execute();
  // A young history: each account's new folio is the other's temporary one (SR numbers the copies
  // by ticket, not by temporary folio), and SR has already pointed both accounts' rows at them.
  await f.shift({ idturno: 30, apertura: local(2026, 3, 10, 8), cierre: local(2026, 3, 10, 23) });
  const one = { idturno: 30, pagado: true, cierre: local(2026, 3, 10, 13), fecha: local(2026, 3, 10, 12) };
  swapped = [
    await f.closedCopyOf(old, { ...one, numcheque: 4, lines: [{ idproducto: '1005' }], pagos: [{ idformadepago: 'EFE' }] }),
    await f.closedCopyOf(old, { ...one, numcheque: 5, lines: [{ idproducto: '2001' }], pagos: [{ idformadepago: 'TAR' }] }),
  ];
  for (const [a, b] of [swapped, [...swapped].reverse()]) {
    await db.updateTable('cheques').set({ foliotempcheques: b!.folio }).where('folio', '=', a!.folio).execute();
    await db.updateTable('cheqdet').set({ procesado: true }).where('foliodet', '=', a!.folio).execute();
    await db.updateTable('chequespagos').set({ procesado: true }).where('folio', '=', a!.folio).execute();
  }
});

afterAll(async () => {
  await stack?.stop();
});

const products = (o: Order | undefined) => o?.productos.map((l) => l.idProducto);
const tenders = (o: Order | undefined) => o?.pagos.map((p) => p.idFormaDePago);

describe('reads while SR points an archived account’s rows at its new folio', () => {
  it('lists each closed account with its own lines and payments only', async () => {
    const res = await stack.api('GET', `/ordenes/${BRANCH}`);
    expect(res.status, res.text).toBe(200);
    const byFolio = new Map((res.body.data as Order[]).map((o) => [o.folio, o]));
    expect(products(byFolio.get(old.folio))).toEqual(['3001']);
    expect(tenders(byFolio.get(old.folio))).toEqual(['EFE']);
    expect(products(byFolio.get(archived.folio))).toEqual(['1005', '2001']);
    expect(tenders(byFolio.get(archived.folio))).toEqual(['TAR']);
    expect(products(byFolio.get(legacy.folio))).toEqual(['4001']);
  });

  it('keeps rows SR has pointed at their account with it, whoever had that folio while open', async () => {
    const res = await stack.api('POST', `/ordenes/buscar/${BRANCH}`, { body: { idTurnos: [30] } });
    expect(res.status, res.text).toBe(200);
    expect((res.body.data as Order[]).map((o) => [o.folio, products(o), tenders(o)])).toEqual([
      [swapped[0].folio, ['1005'], ['EFE']],
      [swapped[1].folio, ['2001'], ['TAR']],
    ]);
    const lines = await stack.api('GET', `/ordenes_detalle/${BRANCH}?folio=${swapped[0].folio}`);
    expect((lines.body.data as Order['productos']).map((l) => l.idProducto)).toEqual(['1005']);
  });

  it('searches by shift with the same lines and payments', async () => {
    const res = await stack.api('POST', `/ordenes/buscar/${BRANCH}`, { body: { idTurnos: [10, 20] } });
    expect(res.status, res.text).toBe(200);
    expect((res.body.data as Order[]).map((o) => [o.folio, products(o), tenders(o)])).toEqual([
      [old.folio, ['3001'], ['EFE']],
      [legacy.folio, ['4001'], ['EFE']],
      [archived.folio, ['1005', '2001'], ['TAR']],
    ]);
  });

  it('never lists the archived account’s lines under the old account’s folio', async () => {
    const res = await stack.api('GET', `/ordenes_detalle/${BRANCH}?folio=${old.folio}`);
    expect(res.status, res.text).toBe(200);
    expect((res.body.data as Order['productos']).map((l) => l.idProducto)).toEqual(['3001']);
  });
});
