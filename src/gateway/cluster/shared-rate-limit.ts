/**
 * A store for @fastify/rate-limit that counts in the shared PostgreSQL, so a key's limit holds
 * across every instance it reaches. Fixed windows aligned on the store's clock: every instance
 * puts a request in the same window whatever its own start time or clock.
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { RateLimitWindows } from '../rate-limit-windows.js';

export function sharedRateLimitStore(windows: RateLimitWindows, windowMs: number): FastifyRateLimitStoreCtor {
  return class SharedRateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void): void {
      windows.hit(key, windowMs).then(
        ({ hits, ttlMs }) => callback(null, { current: hits, ttl: ttlMs }),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}
