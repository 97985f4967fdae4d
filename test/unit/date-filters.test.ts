/** Pure date handling of filters: ISO 8601 parsing, inclusive bounds, the operational day. */
import { describe, expect, it } from 'vitest';
import { dateFilterBound, parseDateFilter } from '../../src/protocol/common.js';
import { lastSecondOf, operationalDay } from '../../src/pos/operational-day.js';
import { localIso } from '../../src/pos/values.js';
import { inZone } from '../support/time-zone.js';

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

/**
 * Zones whose clocks jump: Tijuana and St. John's at 02:00 (St. John's 30 minutes off the hour),
 * Santiago at midnight (24:00 → 01:00 in September, 24:00 → 23:00 in April). Run in the zone
 * itself, as the agent's process is: Node reads TZ again whenever it is set.
 */
describe('days in zones with daylight saving', () => {
  const zones = ['America/Tijuana', 'America/Santiago', 'America/St_Johns', 'America/Mexico_City', 'America/Bogota', 'America/Caracas'];
  const dates = (year: number) => Array.from({ length: 366 }, (_, i) => new Date(Date.UTC(year, 0, 1 + i)).toISOString().slice(0, 10));

  it.each(zones)('%s: each day a date filter names ends where the next one starts', (zone) => {
    inZone(zone, () => {
      const days = dates(2026);
      for (const [i, date] of days.slice(0, -1).entries()) {
        expect(dateFilterBound(date, 'end').at, date).toEqual(dateFilterBound(days[i + 1]!, 'start').at);
      }
    });
  });

  it.each(zones)('%s: each operational day ends where the next one starts, whatever its hour', (zone) => {
    inZone(zone, () => {
      for (let hour = 0; hour < 24; hour++) {
        for (const date of dates(2026)) {
          const [y, m, d] = date.split('-').map(Number) as [number, number, number];
          const day = operationalDay(new Date(y, m - 1, d, 12), hour);
          expect(operationalDay(day.end, hour).start, `${date} from ${hour}:00`).toEqual(day.end);
        }
      }
    });
  });

  it('Santiago, the day of the jump from 24:00 to 01:00: 23 hours, ending at the next midnight', () => {
    inZone('America/Santiago', () => {
      expect(dateFilterBound('2026-09-06', 'start').at).toEqual(new Date('2026-09-06T01:00:00-03:00'));
      expect(dateFilterBound('2026-09-06', 'end').at).toEqual(new Date('2026-09-07T00:00:00-03:00'));
      expect(operationalDay(new Date('2026-09-06T12:00:00-03:00'), 0)).toEqual({
        start: new Date('2026-09-06T01:00:00-03:00'),
        end: new Date('2026-09-07T00:00:00-03:00'),
      });
      // April's midnight comes twice as 23:00: the day before has 25 hours.
      expect(dateFilterBound('2026-04-04', 'end').at).toEqual(new Date('2026-04-05T00:00:00-04:00'));
    });
  });

  /** What the database compares a bound with: its wall-clock fields (drivers send them, the offset is ignored). */
  const wallClock = (value: string, side: 'start' | 'end') => {
    const at = dateFilterBound(value, side).at;
    return localIso(at)!.slice(0, 19);
  };

  it('an end just before the clocks go back takes in the whole minute, not a wall-clock hour less', () => {
    inZone('America/Santiago', () => {
      expect(wallClock('2026-04-04T23:59', 'end')).toBe('2026-04-05T00:00:00');
      expect(wallClock('2026-04-04T23:59:59.999-03:00', 'end')).toBe('2026-04-05T00:00:00');
      expect(wallClock('2026-04-04T23:30-04:00', 'start')).toBe('2026-04-04T23:30:00');
      expect(wallClock('2026-04-04T23:30-04:00', 'end')).toBe('2026-04-04T23:31:00');
    });
    inZone('America/Tijuana', () => {
      expect(wallClock('2026-11-01T01:59:59', 'end')).toBe('2026-11-01T02:00:00');
      expect(wallClock('2026-11-01T01:59', 'end')).toBe('2026-11-01T02:00:00');
    });
    inZone('America/St_Johns', () => {
      expect(wallClock('2026-11-01T01:59', 'end')).toBe('2026-11-01T02:00:00');
    });
  });

  it('Tijuana from 02:00, the day the clocks skip 02:00-03:00: it ends at 02:00 the next day', () => {
    inZone('America/Tijuana', () => {
      expect(operationalDay(new Date('2026-03-08T12:00:00-07:00'), 2)).toEqual({
        start: new Date('2026-03-08T03:00:00-07:00'),
        end: new Date('2026-03-09T02:00:00-07:00'),
      });
      expect(lastSecondOf(operationalDay(new Date('2026-03-08T12:00:00-07:00'), 2))).toEqual(new Date('2026-03-09T01:59:59-07:00'));
    });
  });
});
