import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/pos/totals.js';
import { amount, localIso } from '../../src/pos/values.js';
import { inZone } from '../support/time-zone.js';

describe('amount', () => {
  it('rounds half up to the places asked, from strings and numbers alike', () => {
    expect(amount('36.9241', 2)).toBe(36.92);
    expect(amount('0.0050', 2)).toBe(0.01);
    expect(amount('-0.0050', 2)).toBe(-0.01);
    expect(amount('35.0000', 4)).toBe(35);
    expect(amount('30.1724', 4)).toBe(30.1724);
    expect(amount(1293.1034, 2)).toBe(1293.1);
    expect(amount(null)).toBe(0);
    expect(amount('')).toBe(0);
  });

  it('agrees with decimal.js for any 4-decimal money string', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.integer({ min: 0, max: 4 }), (units, places) => {
        const text = new Dec(units.toString()).dividedBy(10_000).toFixed(4);
        expect(amount(text, places)).toBe(Number(new Dec(text).toDecimalPlaces(places).toFixed()));
      }),
    );
  });
});

describe('localIso', () => {
  it('writes branch-local time with its UTC offset', () => {
    const text = localIso(new Date(2026, 10, 21, 14, 5, 9))!;
    expect(text).toMatch(/^2026-11-21T14:05:09[+-]\d{2}:\d{2}$/);
    expect(new Date(text).getTime()).toBe(new Date(2026, 10, 21, 14, 5, 9).getTime());
  });

  it.each([
    ['America/Mexico_City', '2026-04-05T12:00:00Z', '2026-04-05T06:00:00-06:00'],
    ['America/Tijuana', '2026-07-01T12:00:00Z', '2026-07-01T05:00:00-07:00'],
    ['America/Tijuana', '2026-11-01T09:30:00Z', '2026-11-01T01:30:00-08:00'],
    ['America/Bogota', '2026-11-21T20:05:00Z', '2026-11-21T15:05:00-05:00'],
    ['America/Caracas', '2026-11-21T20:05:00Z', '2026-11-21T16:05:00-04:00'],
    ['America/Santiago', '2026-09-06T04:00:00Z', '2026-09-06T01:00:00-03:00'],
    ['America/St_Johns', '2026-11-21T20:05:00Z', '2026-11-21T16:35:00-03:30'],
    ['America/St_Johns', '2026-07-01T20:05:00Z', '2026-07-01T17:35:00-02:30'],
  ])('in %s writes %s as %s, naming the same instant', (zone, instant, expected) => {
    inZone(zone, () => {
      expect(localIso(new Date(instant))).toBe(expected);
      expect(Date.parse(expected)).toBe(Date.parse(instant));
    });
  });
});
