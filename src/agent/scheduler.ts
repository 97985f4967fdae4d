/**
 * Maintenance on a schedule: expired idempotency records and print job records older than 90
 * days are purged every hour, at minute 17 (local time).
 *
 * A timer set for the next run, not node-cron: node-cron checks its schedule every second
 * through Intl time-zone formatting, which kept ICU's data (8 MB) resident and a stream of
 * garbage in an agent that is otherwise idle.
 */
import type { Logger } from 'pino';
import { purgeExpired } from '../pos/idempotency.js';
import { purgePrintJobs } from '../pos/print-jobs.js';
import type { PosRuntime } from '../pos/runtime.js';

export interface SchedulerDeps {
  pos: PosRuntime;
  log: Logger;
}

/** How long a print job's record (price and payment method for receipts) is kept. */
const PRINT_JOB_RETENTION_MS = 90 * 24 * 3_600_000;

const MINUTE_OF_HOUR = 17;

/** Milliseconds from `now` to the next hh:17:00.000. */
export function untilNextRun(now: Date): number {
  const next = new Date(now);
  next.setMinutes(MINUTE_OF_HOUR, 0, 0);
  if (next.getTime() <= now.getTime()) next.setHours(next.getHours() + 1);
  return next.getTime() - now.getTime();
}

export function startScheduler(deps: SchedulerDeps): () => void {
  const purge = async () => {
    try {
      const now = new Date();
      const removed = await purgeExpired(deps.pos.db, now);
      const printJobs = await purgePrintJobs(deps.pos, new Date(now.getTime() - PRINT_JOB_RETENTION_MS));
      if (removed + printJobs > 0) deps.log.info({ removed, printJobs }, 'expired idempotency and print job records purged');
    } catch (error) {
      deps.log.warn({ err: error }, 'purge of expired records failed; will retry next hour');
    }
  };
  let timer: NodeJS.Timeout;
  let stopped = false;
  const schedule = () => {
    // A purge still running at stop must not set the next one.
    if (!stopped) timer = setTimeout(() => void purge().finally(schedule), untilNextRun(new Date()));
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
