import { describe, expect, it } from 'vitest';
import { untilNextRun } from '../../src/agent/scheduler.js';

const at = (h: number, m: number, s = 0, ms = 0) => new Date(2026, 4, 10, h, m, s, ms);

describe('the hourly maintenance schedule (minute 17)', () => {
  it('runs later this hour when minute 17 is still ahead', () => {
    expect(untilNextRun(at(9, 0))).toBe(17 * 60_000);
    expect(untilNextRun(at(9, 16, 59, 500))).toBe(500);
  });

  it('runs next hour once minute 17 has come', () => {
    expect(untilNextRun(at(9, 17))).toBe(60 * 60_000);
    expect(untilNextRun(at(9, 30))).toBe(47 * 60_000);
    expect(untilNextRun(at(23, 59))).toBe(18 * 60_000);
  });
});
