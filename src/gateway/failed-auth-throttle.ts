/**
 * Failed authentications counted in fixed windows, per client address and over all addresses
 * together. Past `maxFailures` in its window an address is told to wait until the window ends;
 * past `maxFailuresAllAddresses` every address is, so a flood spread over many addresses (or
 * over the addresses a client may claim) is held too. Only a bounded number of addresses is
 * tracked (the least recently failing are forgotten first), so a flood from many addresses cannot
 * grow it without limit. Valid keys are never counted here (authentication.ts).
 */
import { LruMap } from 'toad-cache';

export interface FailedAuthLimit {
  maxFailures: number;
  /** Failures of every address together per window before all of them wait. */
  maxFailuresAllAddresses: number;
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
  #all: Window | undefined;

  constructor(private readonly limit: FailedAuthLimit) {
    this.#windows = new LruMap(limit.trackedAddresses, limit.windowSeconds * 1000);
  }

  /** Counts a failure of `address`; the seconds it must wait, or 0 while it and all addresses are under their limits. */
  fail(address: string): number {
    const now = Date.now();
    let own = this.#windows.get(address);
    if (!own) {
      own = this.#newWindow(now);
      this.#windows.set(address, own);
    }
    if (!this.#all || this.#all.endsAt <= now) this.#all = this.#newWindow(now);
    own.failures++;
    this.#all.failures++;
    return Math.max(waitOf(own, this.limit.maxFailures, now), waitOf(this.#all, this.limit.maxFailuresAllAddresses, now));
  }

  #newWindow(now: number): Window {
    return { failures: 0, endsAt: now + this.limit.windowSeconds * 1000 };
  }
}

function waitOf(window: Window, max: number, now: number): number {
  return window.failures > max ? Math.max(1, Math.ceil((window.endsAt - now) / 1000)) : 0;
}
