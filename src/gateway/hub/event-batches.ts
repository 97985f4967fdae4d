/**
 * An agent's `events` batches, stored one after the other per connection. Each is a transaction
 * on the pool every request shares: a compromised branch server that sent them without waiting
 * for acknowledgements had them all stored at once, held every connection of the pool, and made
 * everyone's requests wait behind them (test/integration/event-flood.test.ts).
 */
import type { Logger } from 'pino';

/**
 * Batches of one connection stored or waiting at once; later ones are dropped unacknowledged,
 * and the agent sends them again. An agent keeps one batch in flight (two when it sends one
 * again after its ack timed out while the store was slow).
 */
export const MAX_EVENT_BATCHES = 4;

export interface EventBatches {
  waiting: number;
  stored: Promise<void>;
  dropped: number;
}

export const noEventBatches = (): EventBatches => ({ waiting: 0, stored: Promise.resolve(), dropped: 0 });

/** Stores a batch (`store` never throws) after the connection's earlier ones, or drops it. */
export function queueEventBatch(agent: { licenseKey: string; eventBatches: EventBatches }, store: () => Promise<void>, log: Logger): void {
  const batches = agent.eventBatches;
  if (batches.waiting >= MAX_EVENT_BATCHES) {
    if (batches.dropped++ === 0) log.warn({ licenseKey: agent.licenseKey }, 'agent sends events faster than they are stored; dropping batches unacknowledged');
    return;
  }
  batches.waiting++;
  batches.stored = batches.stored.then(async () => {
    await store();
    batches.waiting--;
  });
}
