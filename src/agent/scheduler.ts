/**
 * Maintenance on a schedule (node-cron): expired idempotency records and print job records older
 * than 90 days are purged every hour.
 */
import cron from 'node-cron';
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

export function startScheduler(deps: SchedulerDeps): () => void {
  const purge = cron.schedule('17 * * * *', async () => {
    try {
      const now = new Date();
      const removed = await purgeExpired(deps.pos.db, now);
      const printJobs = await purgePrintJobs(deps.pos, new Date(now.getTime() - PRINT_JOB_RETENTION_MS));
      if (removed + printJobs > 0) deps.log.info({ removed, printJobs }, 'expired idempotency and print job records purged');
    } catch (error) {
      deps.log.warn({ err: error }, 'purge of expired records failed; will retry next hour');
    }
  });
  return () => {
    void purge.destroy();
  };
}
