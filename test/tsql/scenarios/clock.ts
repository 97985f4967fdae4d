/**
 * The one moment every scenario happens at: the job runner's clock and the fixtures' times. The
 * operations that read "today" (the day's orders, attendance) then find their fixtures at any
 * time of day, also when the run crosses an operational day's start (a fixture written at 04:59
 * and a read at 05:00 with `dayStartHour` 5 found nothing, and recorded other statements).
 */
export const SCENARIO_NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
