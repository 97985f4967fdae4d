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

/**
 * The day of that calendar date, each end made from the date and hour themselves: where the clock
 * skips the hour (Santiago's midnight in September, Tijuana's 02:00 in March) the start falls an
 * hour later, and a day counted on from it would end an hour into the next day's.
 */
function dayOf(year: number, month: number, date: number, dayStartHour: number): OperationalDay {
  return { start: new Date(year, month, date, dayStartHour), end: new Date(year, month, date + 1, dayStartHour) };
}

/** The operational day `now` (branch-local) falls in. */
export function operationalDay(now: Date, dayStartHour: number): OperationalDay {
  const today = dayOf(now.getFullYear(), now.getMonth(), now.getDate(), dayStartHour);
  return now < today.start ? dayOf(now.getFullYear(), now.getMonth(), now.getDate() - 1, dayStartHour) : today;
}

/** The last whole second of the day, as the seed writes its end (05:59:59). */
export function lastSecondOf(day: OperationalDay): Date {
  return new Date(day.end.getTime() - 1000);
}
