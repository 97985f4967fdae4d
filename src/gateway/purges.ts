/**
 * Retention of the gateway's growing tables, on a schedule: idempotency records past their
 * expiry (set when claimed: idempotencyRetentionHours, 24 h by default) and job log entries
 * and ended agent connections older than jobLogRetentionDays (30), events (with their deliveries) older than
 * eventRetentionDays (7), all by the store's clock, which those times are written on. A purge that fails is logged and tried at the next turn.
 */
import type { Logger } from 'pino';
import type { GatewayStore } from './store.js';

export interface PurgeSchedule {
  jobLogRetentionMs: number;
  eventRetentionMs: number;
  everyMs: number;
}

export interface Purges {
  /** Stops the schedule, after the purge running now (if any) has ended. */
  stop(): Promise<void>;
}

export function schedulePurges(store: GatewayStore, log: Logger, schedule: PurgeSchedule): Purges {
  let running: Promise<void> | undefined;
  const purge = async () => {
    try {
      const idempotency = await store.purgeIdempotencyKeys();
      const jobLog = await store.purgeJobLog(schedule.jobLogRetentionMs);
      const connections = await store.purgeAgentConnections(schedule.jobLogRetentionMs);
      const events = await store.events.purgeEvents(schedule.eventRetentionMs);
      if (idempotency + jobLog + connections + events > 0) log.info({ idempotency, jobLog, connections, events }, 'purged records past their retention');
    } catch (error) {
      log.error({ err: error }, 'could not purge records past their retention; trying again at the next turn');
    }
  };
  const turn = () => {
    running ??= purge().finally(() => (running = undefined));
  };
  // At start too: a gateway that never runs for a whole interval still purges.
  turn();
  const timer = setInterval(turn, schedule.everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
