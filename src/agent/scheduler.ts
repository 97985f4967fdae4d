/**
 * Maintenance on a schedule (node-cron): expired idempotency records are purged every hour and
 * the agent reports its version and uptime to the gateway every minute.
 */
import cron from 'node-cron';
import type { Logger } from 'pino';
import type { StatusMessage } from '../protocol/messages.js';
import { purgeExpired } from '../pos/idempotency.js';
import type { PosRuntime } from '../pos/runtime.js';

export interface SchedulerDeps {
  pos: PosRuntime;
  log: Logger;
  status: () => Promise<StatusMessage>;
  send: (message: StatusMessage) => boolean;
}

export function startScheduler(deps: SchedulerDeps): () => void {
  const purge = cron.schedule('17 * * * *', async () => {
    try {
      const removed = await purgeExpired(deps.pos.db, new Date());
      if (removed > 0) deps.log.info({ removed }, 'expired idempotency records purged');
    } catch (error) {
      deps.log.warn({ err: error }, 'idempotency purge failed; will retry next hour');
    }
  });
  const heartbeat = cron.schedule('* * * * *', async () => {
    deps.send(await deps.status());
  });
  return () => {
    void purge.destroy();
    void heartbeat.destroy();
  };
}
