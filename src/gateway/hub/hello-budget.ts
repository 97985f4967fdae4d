/**
 * How often a branch's agent may say hello to this gateway: a burst of HELLO_BURST, then one a
 * second. An agent reconnects with a backoff of 1 s to 60 s; a compromised branch server holding
 * the token could reconnect hundreds of times a second, each hello and each replaced connection a
 * fleet status write queued before every other branch's, until the whole fleet showed offline
 * (test/integration/hello-flood.test.ts). A hello past the budget is closed unrecorded.
 */
export const HELLO_BURST = 10;
const REFILL_MS = 1_000;

interface Bucket {
  tokens: number;
  at: number;
  /** Refused since the last hello accepted: the refusal is logged once. */
  refused: boolean;
}

export class HelloBudget {
  readonly #buckets = new Map<string, Bucket>();

  /** 'ok', or 'refused' ('refusedFirst' for the first refusal of a run, to log). */
  take(licenseKey: string, now = Date.now()): 'ok' | 'refused' | 'refusedFirst' {
    const bucket = this.#buckets.get(licenseKey);
    const tokens = bucket ? Math.min(HELLO_BURST, bucket.tokens + (now - bucket.at) / REFILL_MS) : HELLO_BURST;
    if (tokens < 1) {
      const first = !bucket!.refused;
      this.#buckets.set(licenseKey, { tokens, at: now, refused: true });
      return first ? 'refusedFirst' : 'refused';
    }
    this.#buckets.set(licenseKey, { tokens: tokens - 1, at: now, refused: false });
    return 'ok';
  }
}
