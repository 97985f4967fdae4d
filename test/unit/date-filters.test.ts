/** Pure date handling of filters: ISO 8601 parsing, inclusive bounds, the operational day. */
import { describe, expect, it } from 'vitest';
import { dateFilterBound, parseDateFilter } from '../../src/protocol/common.js';
import { operationalDay } from '../../src/pos/operational-day.js';

const local = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => new Date(y, mo - 1, d, h, mi, s);

describe('operational day window', () => {
  it('starts today at dayStartHour, or yesterday before that hour', () => {
    expect(operationalDay(local(2026, 11, 21, 5, 0), 5)).toEqual({ start: local(2026, 11, 21, 5), end: local(2026, 11, 22, 5) });
    expect(operationalDay(local(2026, 11, 21, 4, 59, 59), 5)).toEqual({ start: local(2026, 11, 20, 5), end: local(2026, 11, 21, 5) });
    expect(operationalDay(local(2026, 3, 1, 1), 6)).toEqual({ start: local(2026, 2, 28, 6), end: local(2026, 3, 1, 6) });
    expect(operationalDay(local(2026, 12, 31, 23, 59), 0)).toEqual({ start: local(2026, 12, 31), end: local(2027, 1, 1) });
  });
});

describe('date filters', () => {
  it('read ISO 8601 with or without offset', () => {
    expect(parseDateFilter('2026-11-21')).toEqual({ at: local(2026, 11, 21), dateOnly: true, spanMs: 60_000 });
    expect(parseDateFilter('2026-11-21T14:05')).toEqual({ at: local(2026, 11, 21, 14, 5), dateOnly: false, spanMs: 60_000 });
    expect(parseDateFilter('2026-11-21 14:05:09')).toEqual({ at: local(2026, 11, 21, 14, 5, 9), dateOnly: false, spanMs: 1000 });
    expect(parseDateFilter('2026-11-21T14:05:09.5')?.spanMs).toBe(1);
    expect(parseDateFilter('2026-11-21T14:05:00Z')?.at).toEqual(new Date(Date.UTC(2026, 10, 21, 14, 5)));
    expect(parseDateFilter('2026-11-21T14:05:00-06:00')?.at).toEqual(new Date(Date.UTC(2026, 10, 21, 20, 5)));
    expect(parseDateFilter('2026-11-21T14:05:00.250+0530')?.at).toEqual(new Date(Date.UTC(2026, 10, 21, 8, 35, 0, 250)));
    expect(parseDateFilter('2026-11-21T14:05:00+05')?.at).toEqual(new Date(Date.UTC(2026, 10, 21, 9, 5)));
  });

  it.each([
    '2026-02-29',
    '2026-04-31',
    '2026-11-21T24:00',
    '2026-11-21T10:60',
    '2026-13-01',
    '2026-11-21T10:00+24:00',
    '2026-11-21T10:00-06:60',
    'yesterday',
    '21/11/2026',
    '',
  ])('refuse %j', (value) => {
    expect(parseDateFilter(value)).toBeNull();
  });

  it('make both ends inclusive of all the value names: a day, a minute, a second', () => {
    expect(dateFilterBound('2026-11-21', 'start')).toEqual({ op: '>=', at: local(2026, 11, 21) });
    expect(dateFilterBound('2026-11-21', 'end')).toEqual({ op: '<', at: local(2026, 11, 22) });
    expect(dateFilterBound('2026-12-31T10:00', 'end')).toEqual({ op: '<', at: local(2026, 12, 31, 10, 1) });
    expect(dateFilterBound('2026-12-31T10:00:59', 'end')).toEqual({ op: '<', at: local(2026, 12, 31, 10, 1) });
    expect(dateFilterBound('2026-12-31T10:00:59.250', 'end')).toEqual({ op: '<', at: new Date(2026, 11, 31, 10, 0, 59, 251) });
    expect(dateFilterBound('2026-12-31', 'end')).toEqual({ op: '<', at: local(2027, 1, 1) });
  });
});
