/**
 * Failed authentications counted per client address, in fixed windows. Past `maxFailures` in a
 * window, the address is told to wait until the window ends. Only a bounded number of addresses
 * is tracked (the least recently failing are forgotten first), so a flood from many addresses
 * cannot grow it without limit.
 */
import { LruMap } from 'toad-cache';

export interface FailedAuthLimit {
  maxFailures: number;
  windowSeconds: number;
  trackedAddresses: number;
}

interface Window {
  failures: number;
  endsAt: number;
}

export class FailedAuthThrottle {
  // Entries expire with their window: the cache's time to live is the window's length.
  readonly #windows: LruMap<Window>;

  constructor(private readonly limit: FailedAuthLimit) {
    this.#windows = new LruMap(limit.trackedAddresses, limit.windowSeconds * 1000);
  }

  /** Counts a failure of `address`; the seconds it must wait, or 0 while it is under the limit. */
  fail(address: string): number {
    const now = Date.now();
    let window = this.#windows.get(address);
    if (!window) {
      window = { failures: 0, endsAt: now + this.limit.windowSeconds * 1000 };
      this.#windows.set(address, window);
    }
    window.failures++;
    return window.failures > this.limit.maxFailures ? Math.max(1, Math.ceil((window.endsAt - now) / 1000)) : 0;
  }
}
