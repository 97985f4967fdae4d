/**
 * GET /asistencias through the whole path. The seeded attendance is relative to the time the
 * template was built, so each test works on rows of its own, placed relative to now (the
 * operational day) or on fixed past dates (explicit windows).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { localIso } from '../../src/pos/values.js';
import { BRANCH, OTHER_USERS_BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { skipOnBabelfish } from '../support/babelfish.js';

let stack: TestStack;
let db: PosDb;

const MINUTE = 60_000;
const local = (y: number, m: number, d: number, h = 0, mi = 0) => new Date(y, m - 1, d, h, mi);

/** Today's operational day as docs/api.md defines it, written out independently of the agent's code. */
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

/** The seed's default operational day: 06:00 to 05:59:59 of the next day. */
const seedDay = operationalDay(now, 6);

const today: Row[] = [
  { idmovto: 'd1', idempleado: '01', tipo: 1, entrada: dayStart, salida: null },
  { idmovto: 'd2', idempleado: 'CAJERO', tipo: 2, entrada: dayStart, salida: new Date(dayStart.getTime() + 90 * MINUTE) },
  { idmovto: 'd3', idempleado: '99', tipo: 1, entrada: dayStart, salida: null },
  { idmovto: 'd4', idempleado: 'NADIE', tipo: 2, entrada: dayStart, salida: null },
  // One minute before the day starts: yesterday's.
  { idmovto: 'd0', idempleado: '02', tipo: 1, entrada: new Date(dayStart.getTime() - MINUTE), salida: new Date(dayStart.getTime() + 30 * MINUTE) },
  // 04:00 on the calendar day the seed's operational day starts: the night of the day before.
  {
    idmovto: 'n1',
    idempleado: '01',
    tipo: 1,
    entrada: new Date(seedDay.start.getTime() - 120 * MINUTE),
    salida: new Date(seedDay.start.getTime() - 60 * MINUTE),
  },
  // 06:01: the seed's operational day.
  { idmovto: 'n2', idempleado: '02', tipo: 1, entrada: new Date(seedDay.start.getTime() + MINUTE), salida: null },
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
  await db
    .insertInto('registroasistencias')
    .values([...today, ...march])
    .execute();
});
afterAll(async () => {
  await stack?.stop();
});

const get = (query = '', branch = BRANCH) => stack.api('GET', `/asistencias/${branch}${query}`);
const ids = (body: { data: Array<{ idMovto: string }> }) => body.data.map((r) => r.idMovto);
const lastSecond = (end: Date) => new Date(end.getTime() - 1000);

/** The rows the seed's rule gives for [start, end): by employee id, then clock-in (then idmovto). */
function expectedIds(start: Date, end: Date): string[] {
  return [...today, ...march]
    .filter((r) => r.entrada >= start && r.entrada < end)
    .sort((a, b) =>
      a.idempleado < b.idempleado ? -1 : a.idempleado > b.idempleado ? 1 : a.entrada.getTime() - b.entrada.getTime() || (a.idmovto < b.idmovto ? -1 : 1),
    )
    .map((r) => r.idmovto);
}

describe('GET /asistencias: the operational day', () => {
  it('lists the current operational day with names, durations and the applied window', async () => {
    const res = await get(`?dayStartHour=${hour}`);
    expect(res.status).toBe(200);
    expect(res.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    const day = operationalDay(new Date(), hour);
    const expected = expectedIds(day.start, day.end);
    expect(res.body).toMatchObject({ workerId: `agent-${BRANCH}`, page: 1, pageSize: 50, totalResults: expected.length, hasNextPage: false });
    // The seed's inclusive end: the last second of the day.
    expect(res.body.entradaStart).toBe(localIso(day.start));
    expect(res.body.entradaEnd).toBe(localIso(lastSecond(day.end)));
    expect(ids(res.body)).toEqual(expected);

    const byId = Object.fromEntries(res.body.data.map((r: { idMovto: string }) => [r.idMovto, r]));
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
    // Open: no clock-out, so no duration (seed).
    expect(byId.d1).toMatchObject({ idEmpleado: '01', nombre: 'Juan Pérez', tipo: 1, salida: null, abierta: true, duracionMinutos: null });
    expect(byId.d3.nombre).toBeNull();
    expect(byId.d4.nombre).toBeNull();
  });

  it('defaults to the seed operational day, 06:00 to 05:59:59: a clock-in at 04:00 is the night before', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect([res.body.entradaStart, res.body.entradaEnd]).toEqual([localIso(seedDay.start), localIso(lastSecond(seedDay.end))]);
    expect(res.body.entradaStart).toMatch(/T06:00:00/);
    expect(res.body.entradaEnd).toMatch(/T05:59:59/);
    expect(ids(res.body)).toEqual(expectedIds(seedDay.start, seedDay.end));
    expect(ids(res.body)).toContain('n2');
    expect(ids(res.body)).not.toContain('n1');
  });

  it('starts yesterday when now is before dayStartHour', async () => {
    if (hour === 23) return; // no later hour today to test with
    const res = await get(`?dayStartHour=${hour + 1}`);
    const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1, hour + 1);
    const end = new Date(now.getFullYear(), now.getMonth(), now.getDate(), hour + 1);
    expect(res.body.entradaStart).toBe(localIso(yesterday));
    expect(res.body.entradaEnd).toBe(localIso(lastSecond(end)));
    expect(ids(res.body)).toEqual(expectedIds(yesterday, end));
    expect(ids(res.body)).toEqual(expect.arrayContaining(['d0', 'd1', 'd2', 'd3', 'd4']));
  });
});

describe('GET /asistencias: explicit windows', () => {
  it('a date alone as entradaEnd takes in that whole day; both bounds are echoed as received', async () => {
    const res = await get('?entradaStart=2024-03-10&entradaEnd=2024-03-10');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(['m1', 'm2']);
    expect(res.body.entradaStart).toBe('2024-03-10');
    expect(res.body.entradaEnd).toBe('2024-03-10');
    expect(res.body.data[0]).toMatchObject({ idEmpleado: '01', nombre: 'Juan Pérez', duracionMinutos: 510, abierta: false });
    expect(res.body.data[1]).toMatchObject({ idEmpleado: '02', nombre: 'María López', duracionMinutos: 480 });
  });

  it('an entradaEnd with a time takes in that whole second or minute, echoed as sent', async () => {
    const res = await get('?entradaStart=2024-03-10T00:00:00&entradaEnd=2024-03-11T09:00:00');
    expect(ids(res.body)).toEqual(['m1', 'm2', 'm3']);
    expect([res.body.entradaStart, res.body.entradaEnd]).toEqual(['2024-03-10T00:00:00', '2024-03-11T09:00:00']);
    const toTheMinute = await get('?entradaStart=2024-03-10T00:00&entradaEnd=2024-03-11T08:59');
    expect(ids(toTheMinute.body)).toEqual(['m1', 'm2']);
    expect(toTheMinute.body.entradaEnd).toBe('2024-03-11T08:59');
    expect(res.body.data[2]).toMatchObject({ idEmpleado: 'ADMIN', nombre: 'Administrador', tipo: 2, duracionMinutos: 0 });
  });

  it('echoes a far date and a time exactly, never as the next day or minute', async () => {
    const res = await get('?entradaStart=2030-01-01&entradaEnd=2030-01-01T10:00');
    expect(res.status).toBe(200);
    expect([res.body.entradaStart, res.body.entradaEnd]).toEqual(['2030-01-01', '2030-01-01T10:00']);
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
      expect([res.body.entradaStart, res.body.entradaEnd]).toEqual([value, value]);
    }
  });

  it('only entradaStart: the end is the end of the seed operational day', async () => {
    const res = await get('?entradaStart=2024-03-11T09:00:00&dayStartHour=3');
    expect(res.status).toBe(200);
    // dayStartHour only applies when neither bound is sent.
    expect(res.body.entradaEnd).toBe(localIso(lastSecond(seedDay.end)));
    expect(ids(res.body)).toEqual(expectedIds(local(2024, 3, 11, 9), seedDay.end));
  });

  it('only entradaEnd: the start is the start of the seed operational day', async () => {
    const res = await get('?entradaEnd=2024-03-11');
    expect(res.body.entradaStart).toBe(localIso(seedDay.start));
    expect(res.body.entradaEnd).toBe('2024-03-11');
    expect(ids(res.body)).toEqual([]);
    const later = new Date(seedDay.end.getTime() + 60 * MINUTE);
    const toLater = await get(`?entradaEnd=${encodeURIComponent(localIso(later)!)}`);
    expect(toLater.body.entradaStart).toBe(localIso(seedDay.start));
    expect(ids(toLater.body)).toEqual(expectedIds(seedDay.start, new Date(later.getTime() + 1000)));
  });
});

describe('GET /asistencias: filters and paging', () => {
  const march1 = '?entradaStart=2024-03-01&entradaEnd=2024-03-31';

  it('tipo picks waiters or users', async () => {
    expect(ids((await get(`${march1}&tipo=1`)).body)).toEqual(['m1', 'm2']);
    // By employee id: ADMIN before CAJERO.
    expect(ids((await get(`${march1}&tipo=2`)).body)).toEqual(['m3', 'm4']);
  });

  it('abiertas: true only records without salida, false only with', async () => {
    const open = await get(`${march1}&abiertas=true`);
    expect(ids(open.body)).toEqual(['m4']);
    expect(open.body.data[0]).toMatchObject({ abierta: true, salida: null, nombre: 'Cajero de turno', duracionMinutos: null });
    expect(ids((await get(`${march1}&abiertas=false`)).body)).toEqual(['m1', 'm2', 'm3']);
  });

  it('search matches the employee id or the name, case-insensitively and literally', async ({ skip }) => {
    skipOnBabelfish(skip, 'likeEscape');
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
