/**
 * The job log (gw_job_log) is for operators: entries are queued and written in batches off the
 * request path. Losing one must never fail a request, but a batch the store did not take is
 * logged, with how many entries were lost.
 */
import type { Logger } from 'pino';
import type { GatewayDatabase, GatewayStore } from './store.js';

export type JobLogEntry = GatewayDatabase['gw_job_log'];

export class JobLog {
  readonly #queue: JobLogEntry[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: GatewayStore,
    private readonly log: Logger,
    private readonly batchAfterMs = 250,
  ) {}

  add(entry: JobLogEntry): void {
    this.#queue.push(entry);
    this.#timer ??= setTimeout(() => void this.flush(), this.batchAfterMs);
  }

  /** Writes what is queued; never throws. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#queue.splice(0);
    try {
      await this.store.insertJobLog(batch);
    } catch (error) {
      this.log.error({ err: error, lost: batch.length, jobIds: batch.map((e) => e.job_id) }, 'job log entries could not be written and are lost');
    }
  }
}
