/**
 * Fixed-window request counters shared by every gateway of a cluster (gw_rate_limit_windows,
 * migration 006): one upsert per request says how many the key made in the current window.
 */
import { sql, type Kysely } from 'kysely';
import type { GatewayDatabase } from './store-schema.js';

export class RateLimitWindows {
  constructor(private readonly db: Kysely<GatewayDatabase>) {}

  /** Counts one request of `keyHash` in the window starting at `windowStart`; the window's total so far. */
  async hit(keyHash: string, windowStart: number): Promise<number> {
    const row = await this.db
      .insertInto('gw_rate_limit_windows')
      .values({ key_hash: keyHash, window_start: windowStart, hits: 1 })
      .onConflict((c) => c.columns(['key_hash', 'window_start']).doUpdateSet({ hits: sql`gw_rate_limit_windows.hits + 1` }))
      .returning('hits')
      .executeTakeFirstOrThrow();
    return row.hits;
  }

  /** Forgets windows that started before `before`. */
  async purge(before: number): Promise<void> {
    await this.db
      .deleteFrom('gw_rate_limit_windows')
      .where(sql<boolean>`window_start < ${before}`)
      .execute();
  }
}
