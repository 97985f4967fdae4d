/** The UTC time written where SR writes GETUTCDATE(), as the drivers send it: wall-clock fields. */
import { describe, expect, it } from 'vitest';
import { utcWallClock } from '../../src/pos/sync-marks.js';
import { inZone } from '../support/time-zone.js';

/** The local fields a driver sends for a Date (node-postgres, tedious with useUTC false). */
const fields = (d: Date) => [d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds()];
const utcFields = (d: Date) => [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()];

describe('utcWallClock', () => {
  it.each(['America/Tijuana', 'America/Santiago', 'America/St_Johns', 'America/Mexico_City', 'America/Caracas'])(
    '%s: the fields sent are the UTC time, every half hour of 2026 outside the hour a change of clocks skips',
    (zone) => {
      inZone(zone, () => {
        for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 30 * 60_000) {
          const now = new Date(t);
          const sent = utcWallClock(now);
          // A UTC time in the skipped hour has no local Date to carry it: the next hour is sent.
          const local = new Date(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), now.getUTCHours());
          if (local.getHours() !== now.getUTCHours()) continue;
          expect(fields(sent), now.toISOString()).toEqual(utcFields(now));
        }
      });
    },
  );
});
