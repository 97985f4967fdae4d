/**
 * GET /asistencias through the whole path. The seeded attendance is relative to the time the
 * template was built, so each test works on rows of its own, placed relative to now (the
 * operational day) or on fixed past dates (explicit windows).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/db.js';
import { localIso } from '../../src/pos/values.js';
import { BRANCH, OTHER_USERS_BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let db: PosDb;

const MINUTE = 60_000;
const local = (y: number, m: number, d: number, h = 0, mi = 0) => new Date(y, m - 1, d, h, mi);

/** Today's operational day as API.md defines it, written out independently of the agent's code. */
function operationalDay(now: Date, hour: number): { start: Date; end: Date } {
  const todayAtHour = new Date(now.getFullYear(), now.getMonth(), now.getDate(), hour);
  const start = now >= todayAtHour ? todayAtHour : new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1, hour);
  return { start, end: new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1, hour) };
}

// The current hour as dayStartHour: the day starts at most an hour ago, so rows at its start are in the past.
const now = new Date();
const hour = now.getHours();
const dayStart = operationalDay(now, hour).start;

interface Row {
  idmovto: string;
  idempleado: string;
  tipo: number;
  entrada: Date;
  salida: Date | null;
}

const today: Row[] = [
  { idmovto: 'd1', idempleado: '01', tipo: 1, entrada: dayStart, salida: null },
  { idmovto: 'd2', idempleado: 'CAJERO', tipo: 2, entrada: dayStart, salida: new Date(dayStart.getTime() + 90 * MINUTE) },
  { idmovto: 'd3', idempleado: '99', tipo: 1, entrada: dayStart, salida: null },
  { idmovto: 'd4', idempleado: 'NADIE', tipo: 2, entrada: dayStart, salida: null },
  // One minute before the day starts: yesterday's.
  { idmovto: 'd0', idempleado: '02', tipo: 1, entrada: new Date(dayStart.getTime() - MINUTE), salida: new Date(dayStart.getTime() + 30 * MINUTE) },
];

const march: Row[] = [
  { idmovto: 'm1', idempleado: '01', tipo: 1, entrada: local(2024, 3, 10, 8), salida: local(2024, 3, 10, 16, 30) },
  { idmovto: 'm2', idempleado: '02', tipo: 1, entrada: local(2024, 3, 10, 23, 59), salida: local(2024, 3, 11, 7, 59) },
  { idmovto: 'm3', idempleado: 'ADMIN', tipo: 2, entrada: local(2024, 3, 11, 9), salida: local(2024, 3, 11, 9, 0) },
  { idmovto: 'm4', idempleado: 'CAJERO', tipo: 2, entrada: local(2024, 3, 12, 10), salida: null },
];

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  await db.deleteFrom('registroasistencias').execute();
  await db.insertInto('registroasistencias').values([...today, ...march]).execute();
});
afterAll(async () => {
  await stack?.stop();
});

const get = (query = '', branch = BRANCH) => stack.api('GET', `/asistencias/${branch}${query}`);
const ids = (body: { data: Array<{ idMovto: string }> }) => body.data.map((r) => r.idMovto);

describe('GET /asistencias: the operational day', () => {
  it('lists the current operational day with names, durations and the applied window', async () => {
    const res = await get(`?dayStartHour=${hour}`);
    expect(res.status).toBe(200);
    expect(res.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toMatchObject({ workerId: `agent-${BRANCH}`, page: 1, pageSize: 50, totalResults: 4, totalPages: 1, hasNextPage: false });
    const day = operationalDay(new Date(), hour);
    expect(res.body.entradaStart).toBe(localIso(day.start));
    expect(res.body.entradaEnd).toBe(localIso(day.end));

    const byId = Object.fromEntries(res.body.data.map((r: { idMovto: string }) => [r.idMovto, r]));
    expect(Object.keys(byId).sort()).toEqual(['d1', 'd2', 'd3', 'd4']);
    expect(byId.d2).toEqual({
      idMovto: 'd2',
      idEmpleado: 'CAJERO',
      nombre: 'Cajero de turno',
      tipo: 2,
      entrada: localIso(dayStart),
      salida: localIso(new Date(dayStart.getTime() + 90 * MINUTE)),
      abierta: false,
      duracionMinutos: 90,
    });
    expect(byId.d1).toMatchObject({ idEmpleado: '01', nombre: 'Juan Pérez', tipo: 1, salida: null, abierta: true });
    // Open: minutes from entrada to the agent's now.
    const openFor = Math.floor((Date.now() - dayStart.getTime()) / MINUTE);
    expect(byId.d1.duracionMinutos).toBeGreaterThanOrEqual(openFor - 1);
    expect(byId.d1.duracionMinutos).toBeLessThanOrEqual(openFor);
    expect(byId.d3.nombre).toBeNull();
    expect(byId.d4.nombre).toBeNull();
  });

  it('defaults dayStartHour to 0: today from midnight', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    const day = operationalDay(new Date(), 0);
    expect([res.body.entradaStart, res.body.entradaEnd]).toEqual([localIso(day.start), localIso(day.end)]);
    const expected = today.filter((r) => r.entrada >= day.start && r.entrada < day.end).map((r) => r.idmovto);
    expect(ids(res.body).sort()).toEqual(expected.sort());
  });

  it('starts yesterday when now is before dayStartHour', async () => {
    if (hour === 23) return; // no later hour today to test with
    const res = await get(`?dayStartHour=${hour + 1}`);
    const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1, hour + 1);
    expect(res.body.entradaStart).toBe(localIso(yesterday));
    expect(res.body.entradaEnd).toBe(localIso(new Date(now.getFullYear(), now.getMonth(), now.getDate(), hour + 1)));
    // Every row of today, and the one a minute before this hour: all after yesterday at hour + 1.
    expect(ids(res.body).sort()).toEqual(['d0', 'd1', 'd2', 'd3', 'd4']);
  });
});

describe('GET /asistencias: explicit windows', () => {
  it('a date alone as entradaEnd takes in that whole day, reported as the next midnight (exclusive)', async () => {
    const res = await get('?entradaStart=2024-03-10&entradaEnd=2024-03-10');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(['m1', 'm2']);
    expect(res.body.entradaStart).toBe(localIso(local(2024, 3, 10)));
    expect(res.body.entradaEnd).toBe(localIso(local(2024, 3, 11)));
    expect(res.body.data[0]).toMatchObject({ idEmpleado: '01', nombre: 'Juan Pérez', duracionMinutos: 510, abierta: false });
    expect(res.body.data[1]).toMatchObject({ idEmpleado: '02', nombre: 'María López', duracionMinutos: 480 });
  });

  it('an entradaEnd with a time takes in that whole second or minute, reported as the instant after it', async () => {
    const res = await get('?entradaStart=2024-03-10T00:00:00&entradaEnd=2024-03-11T09:00:00');
    expect(ids(res.body)).toEqual(['m1', 'm2', 'm3']);
    expect(res.body.entradaEnd).toBe(localIso(new Date(local(2024, 3, 11, 9).getTime() + 1000)));
    const toTheMinute = await get('?entradaStart=2024-03-10T00:00&entradaEnd=2024-03-11T08:59');
    expect(ids(toTheMinute.body)).toEqual(['m1', 'm2']);
    expect(toTheMinute.body.entradaEnd).toBe(localIso(local(2024, 3, 11, 9)));
    expect(res.body.data[2]).toMatchObject({ idEmpleado: 'ADMIN', nombre: 'Administrador', tipo: 2, duracionMinutos: 0 });
  });

  it('converts a value with an offset to the branch wall clock', async () => {
    // The instant of m3's entrada written in UTC and at -11:00: the same instant, whatever the agent's zone.
    const instant = local(2024, 3, 11, 9);
    const utc = instant.toISOString().replace('.000Z', 'Z');
    const minus11 = new Date(instant.getTime() - 11 * 60 * MINUTE).toISOString().replace('.000Z', '-11:00');
    for (const value of [utc, minus11]) {
      const res = await get(`?entradaStart=${encodeURIComponent(value)}&entradaEnd=${encodeURIComponent(value)}`);
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual(['m3']);
      expect(res.body.entradaStart).toBe(localIso(instant));
      expect(res.body.entradaEnd).toBe(localIso(new Date(instant.getTime() + 1000)));
    }
  });

  it('only entradaStart: open-ended after it, entradaEnd null', async () => {
    const res = await get('?entradaStart=2024-03-11T09:00:00');
    expect(res.status).toBe(200);
    expect(res.body.entradaEnd).toBeNull();
    // By entrada, then idEmpleado: d0 a minute before the others, then '01' < '99' < 'CAJERO' < 'NADIE'.
    expect(ids(res.body)).toEqual(['m3', 'm4', 'd0', 'd1', 'd3', 'd2', 'd4']);
  });

  it('only entradaEnd: open-ended before it, entradaStart null', async () => {
    const res = await get('?entradaEnd=2024-03-11');
    expect(res.body.entradaStart).toBeNull();
    expect(res.body.entradaEnd).toBe(localIso(local(2024, 3, 12)));
    expect(ids(res.body)).toEqual(['m1', 'm2', 'm3']);
  });
});

describe('GET /asistencias: filters and paging', () => {
  const march1 = '?entradaStart=2024-03-01&entradaEnd=2024-03-31';

  it('tipo picks waiters or users', async () => {
    expect(ids((await get(`${march1}&tipo=1`)).body)).toEqual(['m1', 'm2']);
    expect(ids((await get(`${march1}&tipo=2`)).body)).toEqual(['m3', 'm4']);
  });

  it('abiertas: true only records without salida, false only with', async () => {
    const open = await get(`${march1}&abiertas=true`);
    expect(ids(open.body)).toEqual(['m4']);
    expect(open.body.data[0]).toMatchObject({ abierta: true, salida: null, nombre: 'Cajero de turno' });
    // Open since 2024: minutes up to now.
    expect(open.body.data[0].duracionMinutos).toBeGreaterThan(Math.floor((now.getTime() - local(2024, 3, 12, 10).getTime()) / MINUTE) - 1);
    expect(ids((await get(`${march1}&abiertas=false`)).body)).toEqual(['m1', 'm2', 'm3']);
  });

  it('search matches the employee id or the name, case-insensitively and literally', async () => {
    expect(ids((await get(`${march1}&search=JUAN`)).body)).toEqual(['m1']);
    expect(ids((await get(`${march1}&search=cajer`)).body)).toEqual(['m4']);
    expect(ids((await get(`${march1}&search=02`)).body)).toEqual(['m2']);
    expect(ids((await get(`${march1}&search=${encodeURIComponent('%')}`)).body)).toEqual([]);
  });

  it('pages, and cuts pageSize to 100', async () => {
    const second = await get(`${march1}&pageSize=3&page=2`);
    expect(second.body).toMatchObject({ page: 2, pageSize: 3, totalResults: 4, totalPages: 2, hasNextPage: false });
    expect(ids(second.body)).toEqual(['m4']);
    const past = await get(`${march1}&pageSize=3&page=5`);
    expect(past.body).toMatchObject({ totalResults: 4, data: [] });
    const cut = await get(`${march1}&pageSize=500`);
    expect(cut.status).toBe(200);
    expect(cut.body.pageSize).toBe(100);
  });

  it('an empty window has totalPages 0', async () => {
    const res = await get('?entradaStart=1999-01-01&entradaEnd=1999-01-02');
    expect(res.body).toMatchObject({ totalResults: 0, totalPages: 0, hasNextPage: false, data: [] });
  });
});

describe('GET /asistencias: errors', () => {
  it.each([
    ['entradaStart=ayer', 'querystring.entradaStart'],
    ['entradaEnd=2024-02-30', 'querystring.entradaEnd'],
    ['entradaStart=2024-03-10T25:00:00', 'querystring.entradaStart'],
    ['dayStartHour=24', 'querystring.dayStartHour'],
    ['dayStartHour=-1', 'querystring.dayStartHour'],
    ['tipo=3', 'querystring.tipo'],
    ['abiertas=quizas', 'querystring.abiertas'],
    ['pageSize=0', 'querystring.pageSize'],
  ])('400 validation_failed for %s', async (query, path) => {
    const res = await get(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('401 without a key, 403 on a branch of another user, 400 on a malformed licenseKey', async () => {
    expect((await stack.api('GET', `/asistencias/${BRANCH}`, { key: null })).body.code).toBe('unauthorized');
    const forbidden = await get('', OTHER_USERS_BRANCH);
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'branch_forbidden']);
    expect((await get('', 'SHORT')).status).toBe(400);
  });
});
