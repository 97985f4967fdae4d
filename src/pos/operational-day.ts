/**
 * Soft Restaurant's operational day: a business day that runs past midnight, from `dayStartHour`
 * (6 by default, the seed's 06:00 to 05:59:59) to the same hour of the next day. An order at
 * 02:00 belongs to the day that began the evening before.
 */
export interface OperationalDay {
  /** First instant of the day (inclusive). */
  start: Date;
  /** First instant of the next day (exclusive). */
  end: Date;
}

/** The operational day `now` (branch-local) falls in. */
export function operationalDay(now: Date, dayStartHour: number): OperationalDay {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate(), dayStartHour);
  if (now < start) start.setDate(start.getDate() - 1);
  const end = new Date(start);
  end.setDate(end.getDate() + 1);
  return { start, end };
}

/** The last whole second of the day, as the seed writes its end (05:59:59). */
export function lastSecondOf(day: OperationalDay): Date {
  return new Date(day.end.getTime() - 1000);
}
