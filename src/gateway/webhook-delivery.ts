/**
 * Sends webhook deliveries: leases the due ones from the store, sends each (in order per
 * webhook and branch: the store leases only the oldest pending one of each pair), and records
 * every attempt. A failed attempt is tried again with exponential backoff (5 s, 10 s, 20 s … up
 * to 1 h between attempts) until 24 h after the event, then given up. Woken at once when events
 * are stored here; every second otherwise, which is how deliveries of events stored by another
 * gateway of the same store, and leases of a gateway that died, are picked up.
 */
import type { Logger } from 'pino';
import type { LeasedDelivery } from './event-store.js';
import type { GatewayStore } from './store.js';
import type { AddressPolicy } from './webhook-address.js';
import { openSecret } from './webhook-secrets.js';
import { sendWebhook } from './webhook-sender.js';

/** Deliveries in flight at once (each to a different webhook and branch). */
const DELIVERIES_AT_ONCE = 8;

export interface DeliveryOptions {
  store: GatewayStore;
  log: Logger;
  /** The key sealing webhook secrets (webhook-secrets.ts). */
  webhookKey: Buffer;
  policy: AddressPolicy;
  /** First retry delay; doubled at every attempt up to `retryMaxMs`. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** How long after its event a delivery is tried. */
  giveUpAfterMs?: number;
  timeoutMs: number;
  pollMs?: number;
}

export const DEFAULT_RETRY = { baseMs: 5_000, maxMs: 3_600_000, giveUpAfterMs: 24 * 3_600_000 };

/** When the attempt after `attempts` failed ones is due, or null when it would come too late. */
export function nextAttemptAt(attempts: number, eventCreatedAt: Date, now: number, retry = DEFAULT_RETRY): Date | null {
  const delay = Math.min(retry.maxMs, retry.baseMs * 2 ** Math.max(0, attempts - 1));
  const at = now + delay;
  return at > eventCreatedAt.getTime() + retry.giveUpAfterMs ? null : new Date(at);
}

export class WebhookDelivery {
  #stopped = false;
  #wake: (() => void) | undefined;
  /** A wake that came while no sleep was waiting: the next sleep returns at once. */
  #woken = false;
  #loop: Promise<void> | undefined;
  readonly #retry: typeof DEFAULT_RETRY;

  constructor(private readonly opts: DeliveryOptions) {
    this.#retry = {
      baseMs: opts.retryBaseMs ?? DEFAULT_RETRY.baseMs,
      maxMs: opts.retryMaxMs ?? DEFAULT_RETRY.maxMs,
      giveUpAfterMs: opts.giveUpAfterMs ?? DEFAULT_RETRY.giveUpAfterMs,
    };
  }

  start(): void {
    this.#loop = this.#run();
  }

  /** New events are stored: look for due deliveries now. */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.wake();
    await this.#loop;
  }

  /**
   * Keeps up to DELIVERIES_AT_ONCE attempts in flight, leasing more as each ends: a receiver that
   * takes its whole timeout holds one slot, not the others' next deliveries. Order per webhook
   * and branch is the store's (it leases only the oldest pending delivery of each pair).
   */
  async #run(): Promise<void> {
    const { timeoutMs } = this.opts;
    // Longer than any attempt takes: a lease outlives its attempt only when its gateway died.
    const leaseMs = timeoutMs * 3;
    const inFlight = new Set<Promise<void>>();
    let failing = false;
    const storeFailed = (error: unknown) => {
      if (!failing) this.opts.log.error({ err: error }, 'webhook delivery failed to reach the store; retrying');
      failing = true;
    };
    while (!this.#stopped) {
      this.#woken = false;
      const free = DELIVERIES_AT_ONCE - inFlight.size;
      let leased: LeasedDelivery[] = [];
      if (free > 0) {
        try {
          leased = await this.opts.store.events.leaseDue(free, leaseMs);
          failing = false;
        } catch (error) {
          storeFailed(error);
        }
      }
      for (const d of leased) {
        const attempt: Promise<void> = this.#deliver(d, timeoutMs)
          .catch(storeFailed)
          .finally(() => {
            inFlight.delete(attempt);
            // A slot is free, and the pair's next delivery may be due.
            this.wake();
          });
        inFlight.add(attempt);
      }
      if (free === 0 || leased.length < free || failing) await this.#sleep(this.opts.pollMs ?? 1_000);
    }
    await Promise.all(inFlight);
  }

  async #deliver(d: LeasedDelivery, timeoutMs: number): Promise<void> {
    const secret = openSecret(this.opts.webhookKey, d.secretSealed);
    const at = new Date();
    const result = await sendWebhook(d.url, { id: d.eventId, body: d.payload, secret }, this.opts.policy, timeoutMs);
    const attempt = { at, status: result.status, error: result.error, durationMs: result.durationMs };
    if (result.error === null) {
      await this.opts.store.events.recordAttempt(d.id, attempt, { delivered: true });
      return;
    }
    const retryAt = nextAttemptAt(d.attemptCount + 1, d.eventCreatedAt, Date.now(), this.#retry);
    if (!retryAt) this.opts.log.warn({ webhookId: d.webhookId, eventId: d.eventId, attempts: d.attemptCount + 1 }, 'webhook delivery given up');
    await this.opts.store.events.recordAttempt(d.id, attempt, { delivered: false, retryAt });
  }

  #sleep(ms: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#woken = false;
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}
