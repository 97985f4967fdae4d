/**
 * The seed's operational day (06:00 to 05:59:59 of the next day) as the operational-day and
 * open-orders lists apply it, through the whole path. Every row is placed relative to the current
 * operational day, so the night between 00:00 and 06:00 belongs to the day before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localIso } from '../../src/pos/values.js';
import { PosFixtures, type WrittenAccount } from '../support/fixtures.js';
import { branchClock, day } from '../support/order-history.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';

let stack: TestStack;
const at = (minutes: number) => new Date(day.start.getTime() + minutes * 60_000);
const O: Record<string, WrittenAccount> = {};

beforeAll(async () => {
  stack = await startTestStack({ agent: { wallClock: branchClock } });
  const f = await PosFixtures.for(stack.pos.get(BRANCH)!.db);
  await f.clearAccounts();
  // The night shift of the day before: opened at 20:00, closed at 05:00 (still before 06:00).
  await f.shift({ idturno: 70, apertura: at(-600), cierre: at(-60) });
  // Today's: one closed at 07:00, one open since 07:10 on CAJA2.
  await f.shift({ idturno: 71, apertura: at(10), cierre: at(60) });
  await f.shift({ idturno: 72, apertura: at(70), estacion: 'CAJA2' });

  // 03:00: a sale of the night shift, closed with it. The day before's, even though the calendar date is today's.
  O.night = await f.closedOrder({ idturno: 70, numcheque: 900, fecha: at(-180), lines: [{ idproducto: '1001' }] });
  // Opened at 05:30, before the day began, and paid at 06:20 in today's first shift: today's, by its shift.
  O.early = await f.closedOrder({ idturno: 71, numcheque: 901, fecha: at(-30), cierre: at(20), lines: [{ idproducto: '1002' }] });
  O.morning = await f.closedOrder({ idturno: 71, numcheque: 902, fecha: at(15), lines: [{ idproducto: '1003' }] });
  // In the open shift: paid, and cancelled.
  O.paid = await f.tempOrder({
    estacion: 'CAJA2',
    idturno: 72,
    numcheque: 903,
    pagado: true,
    impreso: true,
    fecha: at(80),
    cierre: at(90),
    lines: [{ idproducto: '2001' }],
    pagos: [{ idformadepago: 'EFE' }],
  });
  O.cancelled = await f.tempOrder({ estacion: 'CAJA2', idturno: 72, cancelado: true, fecha: at(85), lines: [{ idproducto: '2002' }] });
  // No shift yet: an open table, and a quick sale paid while no shift was open (waiting on shift 0).
  O.open = await f.tempOrder({ fecha: at(95), lines: [{ idproducto: '3001' }] });
  O.quick = await f.tempOrder({
    mesa: '',
    tipodeservicio: 3,
    numcheque: 904,
    pagado: true,
    impreso: true,
    fecha: at(100),
    cierre: at(100),
    lines: [{ idproducto: '1001' }],
    pagos: [{ idformadepago: 'EFE' }],
  });
  // Open since 02:00, a table from the night before that no shift holds.
  O.leftover = await f.tempOrder({ fecha: at(-240), lines: [{ idproducto: '1001' }] });
  // TERM2's shift, opened at 01:00 (the day before) and left open overnight: its sales of the night are the day before's, today's are today's.
  await f.shift({ idturno: 69, apertura: at(-300), estacion: 'TERM2' });
  const paidIn69 = { estacion: 'TERM2', idturno: 69, pagado: true, impreso: true, pagos: [{ idformadepago: 'EFE' }] };
  O.overnightNight = await f.tempOrder({ ...paidIn69, numcheque: 905, fecha: at(-200), cierre: at(-190), lines: [{ idproducto: '1002' }] });
  O.overnightToday = await f.tempOrder({ ...paidIn69, numcheque: 906, fecha: at(110), cierre: at(115), lines: [{ idproducto: '1003' }] });
});

afterAll(async () => {
  await stack?.stop();
});

const get = (path: string) => stack.api('GET', path);
const folios = (res: ApiResponse): number[] => res.body.data.map((o: { folio: number }) => o.folio);
const of = (...names: string[]) => names.map((n) => O[n]!.folio);

describe('GET /ordenes_dia', () => {
  it("gathers the orders of the shifts the day started, and the day's orders no shift holds yet", async () => {
    const res = await get(`/ordenes_dia/${BRANCH}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ventanaInicio: localIso(day.start), ventanaFin: localIso(day.end) });
    expect(res.body.ventanaInicio).toMatch(/T06:00:00/);
    expect(res.body.data.map((o: { folio: number; origen: string }) => [o.folio, o.origen])).toEqual([
      [O.early!.folio, 'cerrada'],
      [O.morning!.folio, 'cerrada'],
      [O.paid!.folio, 'temporal'],
      [O.cancelled!.folio, 'temporal'],
      [O.open!.folio, 'temporal'],
      [O.quick!.folio, 'temporal'],
    ]);
  });

  it('puts the 03:00 sale in the day before, with its night shift', async () => {
    // With the day starting at 00:00, today's window holds the night shift's close but not its opening: still not today's.
    expect(folios(await get(`/ordenes_dia/${BRANCH}?dayStartHour=0`))).not.toContain(O.night!.folio);
    expect(folios(await get(`/ordenes_dia/${BRANCH}`))).not.toContain(O.night!.folio);
  });
});

describe('GET /temp_ordenes/{licenseKey}/abiertas', () => {
  it("lists the day's accounts not cancelled, paid ones included", async () => {
    const res = await get(`/temp_ordenes/${BRANCH}/abiertas`);
    expect(res.status).toBe(200);
    expect(folios(res)).toEqual(of('paid', 'open', 'quick', 'overnightToday'));
    expect(res.body.data.map((o: { pagado: boolean }) => o.pagado)).toEqual([true, false, true, true]);
  });

  it("lists today's sales of a shift left open overnight, not the night's (seed: accounts of the current operational day)", async () => {
    const listed = folios(await get(`/temp_ordenes/${BRANCH}/abiertas`));
    expect(listed).toContain(O.overnightToday!.folio);
    expect(listed).not.toContain(O.overnightNight!.folio);
  });
});
