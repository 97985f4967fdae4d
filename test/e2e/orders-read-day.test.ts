/**
 * Reading the operational day (GET /ordenes_dia and /temp_ordenes/{licenseKey}/abiertas) from a
 * known order history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationalDay } from '../../src/pos/operational-day.js';
import { localIso } from '../../src/pos/values.js';
import { type PosFixtures, type WrittenAccount } from '../support/fixtures.js';
import { branchClock, day, expectValidationError, folios, of, orderReadTools, today, writeOrderHistory } from '../support/order-history.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let f: PosFixtures;
let C: Record<string, WrittenAccount>;
let T: Record<string, WrittenAccount>;
const { get } = orderReadTools(() => stack);

beforeAll(async () => {
  stack = await startTestStack({ agent: { wallClock: branchClock } });
  ({ f, C, T } = await writeOrderHistory(stack.pos.get(BRANCH)!.db));
});

afterAll(async () => {
  await stack?.stop();
});

describe('GET /ordenes_dia', () => {
  it("lists today's closed and temporary orders by opening time, the copied account once, with the window", async () => {
    const res = await get(`/ordenes_dia/${BRANCH}`);
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('jobId');
    expect(res.body).toMatchObject({ ventanaInicio: localIso(day.start), ventanaFin: localIso(day.end), totalResults: 6, totalPages: 1 });
    expect(res.body.data.map((o: { folio: number; origen: string }) => [o.folio, o.origen])).toEqual([
      [C.C7!.folio, 'cerrada'],
      [T.TP1!.folio, 'temporal'],
      [T.TP2!.folio, 'temporal'],
      [T.TP3!.folio, 'temporal'],
      [T.TP4!.folio, 'temporal'],
      [C.C6!.folio, 'cerrada'],
    ]);
    const copy = res.body.data[5];
    expect(copy).toMatchObject({ folioTemporal: T.TP5!.folio, estacion: 'CAJA2', pagado: true, idTurno: 9400 });
    expect(copy.productos.map((l: { idProducto: string }) => l.idProducto)).toEqual(['3001']);
    expect(res.body.data[3].pagos).toHaveLength(2);
  });

  it('pages across the closed and the temporary part', async () => {
    const pageOf = async (page: number, pageSize: number) => folios(await get(`/ordenes_dia/${BRANCH}?page=${page}&pageSize=${pageSize}`));
    expect(await pageOf(2, 1)).toEqual(of(T, 'TP1'));
    expect(await pageOf(6, 1)).toEqual(of(C, 'C6'));
    expect(await pageOf(1, 4)).toEqual([...of(C, 'C7'), ...of(T, 'TP1', 'TP2', 'TP3')]);
    expect(await pageOf(2, 4)).toEqual([...of(T, 'TP4'), ...of(C, 'C6')]);
    const past = await get(`/ordenes_dia/${BRANCH}?page=3&pageSize=4`);
    expect(past.body).toMatchObject({ totalResults: 6, totalPages: 2, hasNextPage: false, data: [] });
  });

  it('filters by invoiced and searches both parts', async () => {
    expect(folios(await get(`/ordenes_dia/${BRANCH}?facturado=true`))).toEqual(of(T, 'TP3'));
    expect(folios(await get(`/ordenes_dia/${BRANCH}?search=t2`))).toEqual(of(T, 'TP2'));
    expect(folios(await get(`/ordenes_dia/${BRANCH}?search=1002`))).toEqual(of(C, 'C6'));
    expect(folios(await get(`/ordenes_dia/${BRANCH}?search=zzz`))).toEqual([]);
  });

  it('applies dayStartHour', async () => {
    const hour = 23;
    const res = await get(`/ordenes_dia/${BRANCH}?dayStartHour=${hour}`);
    const window = operationalDay(new Date(branchClock()), hour);
    expect(res.body).toMatchObject({ ventanaInicio: localIso(window.start), ventanaFin: localIso(window.end) });
    expect(new Date(window.start).getHours()).toBe(hour);
  });

  it.each(['24', '-1', 'x', '1.5'])('rejects dayStartHour=%s', async (value) => {
    expectValidationError(await get(`/ordenes_dia/${BRANCH}?dayStartHour=${value}`), 'querystring.dayStartHour');
  });

  it('documents the default of dayStartHour', async () => {
    const spec = await stack.api('GET', '/openapi.json', { key: null });
    const param = spec.body.paths['/ordenes_dia/{licenseKey}'].get.parameters.find((p: { name: string }) => p.name === 'dayStartHour');
    expect(param.description ?? param.schema?.description).toMatch(/default 6/);
  });
});

describe('GET /temp_ordenes/{licenseKey}/abiertas', () => {
  it("lists the operational day's accounts not cancelled, paid ones included, with only the seed's fields", async () => {
    const res = await get(`/temp_ordenes/${BRANCH}/abiertas`);
    expect(res.status).toBe(200);
    // The seed: workerId, dispatchedAt, totalResults and the records; nothing else (no jobId, no paging, no turnosAbiertos).
    expect(Object.keys(res.body).sort()).toEqual(['data', 'dispatchedAt', 'totalResults', 'workerId']);
    // Not TY (opened before the day began), TP4 (cancelled) nor TP5 (paid in shift 9400, which has closed).
    expect(res.body).toMatchObject({ workerId: `agent-${BRANCH}`, totalResults: 3 });
    expect(folios(res)).toEqual(of(T, 'TP1', 'TP2', 'TP3'));
    expect(res.body.data[0].productos.map((l: { idProducto: string }) => l.idProducto)).toEqual(['2001', '1102']);
    expect(res.body.data[2]).toMatchObject({ pagado: true, cancelado: false, idTurno: 9500 });
  });

  it('still lists them when no shift is open', async () => {
    await f.db
      .updateTable('turnos')
      .set({ cierre: today(200) })
      .where('idturno', '=', 9500)
      .execute();
    try {
      const res = await get(`/temp_ordenes/${BRANCH}/abiertas`);
      expect(folios(res)).toEqual(of(T, 'TP1', 'TP2'));
    } finally {
      await f.db.updateTable('turnos').set({ cierre: null }).where('idturno', '=', 9500).execute();
    }
  });
});
