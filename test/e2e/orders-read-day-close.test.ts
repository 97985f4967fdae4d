/**
 * A client pages through the operational day's orders while a shift closes: the close moves the
 * shift's paid accounts from the temporary tables to history (a new folio, the same sale), and
 * leaves the open ones. Paging on after the close must still meet every sale of the day once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PosFixtures, type WrittenAccount } from '../support/fixtures.js';
import { branchClock, today } from '../support/order-history.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let open: WrittenAccount;
let paid: WrittenAccount;

beforeAll(async () => {
  stack = await startTestStack({ agent: { wallClock: branchClock } });
  const f = await PosFixtures.for(stack.pos.get(BRANCH)!.db);
  await f.clearAccounts();
  await f.shift({ idturno: 900, apertura: today(1) });
  // Opened first, still open: no shift holds it yet, and the close leaves it where it is.
  open = await f.tempOrder({ mesa: '1', fecha: today(10), lines: [{ idproducto: '3001' }] });
  paid = await f.tempOrder({
    mesa: '2',
    fecha: today(20),
    idturno: 900,
    numcheque: 77,
    pagado: true,
    impreso: true,
    cierre: today(25),
    lines: [{ idproducto: '1005' }],
    pagos: [{ idformadepago: 'EFE' }],
  });
});

afterAll(async () => {
  await stack?.stop();
});

/** A sale as the client knows it whichever table holds it: its temporary folio. */
type DayOrder = { folio: number; folioTemporal: number | null; origen: string };
const sale = (o: DayOrder) => (o.origen === 'cerrada' ? o.folioTemporal : o.folio);

describe('paging the operational day across a shift close', () => {
  it('meets each sale once when the close comes between two pages', async () => {
    const pageOf = async (page: number) => {
      const res = await stack.api('GET', `/ordenes_dia/${BRANCH}?pageSize=1&page=${page}`);
      expect(res.status, res.text).toBe(200);
      return res.body.data as DayOrder[];
    };
    const first = await pageOf(1);
    const closed = await stack.api('POST', `/turnos_cierre/${BRANCH}`, {
      body: { idTurno: 900, estacion: 'CAJA1', idEmpresa: '0000000001', serie: 'A' },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(closed.status, closed.text).toBe(200);
    const second = await pageOf(2);
    expect(await pageOf(3)).toEqual([]);
    expect([...first, ...second].map(sale).sort()).toEqual([open.folio, paid.folio].sort());
  });
});
