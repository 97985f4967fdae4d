/**
 * Times through the whole path in a zone whose clocks jump, as a branch's agent runs in its own:
 * Santiago (midnight skipped in September, 23:00-24:00 twice in April). Node reads TZ whenever it
 * is set, so setting it before the stack starts puts the agent, its driver and this file in it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PosFixtures } from '../support/fixtures.js';
import { expectValidationError } from '../support/order-history.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';

const savedZone = process.env.TZ;
process.env.TZ = 'America/Santiago';

let stack: TestStack;
const shifts = (query: string) => stack.api('GET', `/turnos/${BRANCH}?${query}`);
const ids = (res: { body: { data: Array<{ idTurno: number }> } }) => res.body.data.map((s) => s.idTurno).sort((a, b) => a - b);

beforeAll(async () => {
  stack = await startTestStack();
  const f = await PosFixtures.for(stack.pos.get(BRANCH)!.db);
  await f.clearAccounts();
  // Saturday 5 September: the last evening before the clocks skip 00:00-01:00 on the 6th.
  await f.shift({ idturno: 80, apertura: new Date('2026-09-05T23:30:00-04:00'), cierre: new Date('2026-09-06T01:10:00-03:00') });
  // Sunday 6th, after the jump, and Monday 7th in its first hour.
  await f.shift({ idturno: 81, apertura: new Date('2026-09-06T01:20:00-03:00'), cierre: new Date('2026-09-06T23:50:00-03:00') });
  await f.shift({ idturno: 82, apertura: new Date('2026-09-07T00:30:00-03:00'), cierre: new Date('2026-09-07T02:00:00-03:00') });
  // Saturday 4 April: 23:00-24:00 comes twice; this one is in the first (-03:00), the next in the second (-04:00).
  await f.shift({ idturno: 83, apertura: new Date('2026-04-04T23:15:00-03:00'), cierre: new Date('2026-04-04T23:45:00-03:00') });
  await f.shift({ idturno: 84, apertura: new Date('2026-04-05T00:10:00-04:00'), cierre: new Date('2026-04-05T01:00:00-04:00') });
  // Opened in the second 23:00-24:00, an hour after 83's: the database keeps 23:30, as it would 23:30 of the first.
  await f.shift({ idturno: 85, apertura: new Date('2026-04-04T23:30:00-04:00'), cierre: new Date('2026-04-04T23:40:00-04:00') });
});

afterAll(async () => {
  await stack?.stop();
  if (savedZone === undefined) delete process.env.TZ;
  else process.env.TZ = savedZone;
});

describe('Santiago: dates alone around the skipped midnight', () => {
  it('a date alone selects its day only: each shift in exactly one day', async () => {
    expect(ids(await shifts('aperturaStart=2026-09-05&aperturaEnd=2026-09-05'))).toEqual([80]);
    expect(ids(await shifts('aperturaStart=2026-09-06&aperturaEnd=2026-09-06'))).toEqual([81]);
    expect(ids(await shifts('aperturaStart=2026-09-07&aperturaEnd=2026-09-07'))).toEqual([82]);
    expect(ids(await shifts('aperturaStart=2026-04-04&aperturaEnd=2026-04-04'))).toEqual([83, 85]);
    expect(ids(await shifts('aperturaStart=2026-04-05&aperturaEnd=2026-04-05'))).toEqual([84]);
  });

  it('answers each time with the offset of its own side of the jump', async () => {
    const res = await shifts('aperturaStart=2026-09-05&aperturaEnd=2026-09-07');
    const byId = new Map(res.body.data.map((s: { idTurno: number; apertura: string; cierre: string }) => [s.idTurno, s]));
    expect(byId.get(80)).toMatchObject({ apertura: '2026-09-05T23:30:00-04:00', cierre: '2026-09-06T01:10:00-03:00' });
    expect(byId.get(82)).toMatchObject({ apertura: '2026-09-07T00:30:00-03:00' });
  });

  it('the hour that comes twice is one wall-clock hour: answered with its first offset, selected whichever offset is sent', async () => {
    const res = await shifts('aperturaStart=2026-04-04T23:00&aperturaEnd=2026-04-04T23:59');
    expect(res.body.data.map((s: { idTurno: number; apertura: string; cierre: string }) => [s.idTurno, s.apertura, s.cierre])).toEqual([
      [85, '2026-04-04T23:30:00-03:00', '2026-04-04T23:40:00-03:00'],
      [83, '2026-04-04T23:15:00-03:00', '2026-04-04T23:45:00-03:00'],
    ]);
    for (const offset of ['-03:00', '-04:00']) {
      const at = encodeURIComponent(`2026-04-04T23:30${offset}`);
      expect(ids(await shifts(`aperturaStart=${at}&aperturaEnd=${at}`)), offset).toEqual([85]);
    }
  });

  it('a time in the skipped hour, or with any offset, selects by the instant it names', async () => {
    // 00:30 on the 6th does not exist: it reads as 01:30, after shift 81 opened at 01:20.
    expect(ids(await shifts('aperturaStart=2026-09-06T00:30&aperturaEnd=2026-09-06'))).toEqual([]);
    expect(ids(await shifts('aperturaStart=2026-09-06T01:20&aperturaEnd=2026-09-06T01:20'))).toEqual([81]);
    expect(ids(await shifts(`aperturaStart=${encodeURIComponent('2026-09-06T04:20:00Z')}&aperturaEnd=2026-09-06T04:20:59Z`))).toEqual([81]);
    expect(
      ids(await shifts(`aperturaStart=${encodeURIComponent('2026-09-07T17:30+14:00')}&aperturaEnd=${encodeURIComponent('2026-09-06T15:30-12:00')}`)),
    ).toEqual([82]);
  });
});

describe('date filters at the edges of what can be written', () => {
  it.each(['9999-12-31', '9999-12-31T23:59:59.999', '9999-12-31T23:59-12:00', '0100-01-01', '2028-02-29', '2026-09-06T01:20:00.000000001'])(
    '%s as an end or a start is a selection, not a failure',
    async (value) => {
      for (const side of ['aperturaStart', 'aperturaEnd', 'cierreEnd']) {
        const res = await shifts(`${side}=${encodeURIComponent(value)}`);
        expect(res.status, `${side}=${value}: ${JSON.stringify(res.body)}`).toBe(200);
      }
    },
  );

  it.each([
    '2026-02-30',
    '2027-02-29',
    '0001-01-01',
    ' 2026-09-06',
    '2026-09-06 ',
    '2026-09-06T24:00',
    '2026-09-06T01',
    '2026-09-06T01:20+14:60',
    '10000-01-01',
  ])('%j is a 400 naming the field', async (value) => {
    expectValidationError(await shifts(`aperturaEnd=${encodeURIComponent(value)}`), 'querystring.aperturaEnd');
  });
});
