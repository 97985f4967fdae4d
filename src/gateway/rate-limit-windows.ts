/**
 * Fixed-window request counters shared by every gateway of a cluster (gw_rate_limit_windows,
 * migration 006): one upsert per request says how many the key made in the current window.
 * Windows are aligned on the store's clock, so instances whose clocks disagree still count a
 * key's requests in the same window.
 */
import { sql, type Kysely } from 'kysely';
import type { GatewayDatabase } from './store-schema.js';

const storeEpochMs = sql<number>`(extract(epoch from now()) * 1000)`;

export class RateLimitWindows {
  constructor(private readonly db: Kysely<GatewayDatabase>) {}

  /** Counts one request of `keyHash` in the current window of `windowMs`: the window's total so far, and the ms left of it. */
  async hit(keyHash: string, windowMs: number): Promise<{ hits: number; ttlMs: number }> {
    const { rows } = await sql<{ hits: number; ttl_ms: number }>`
      insert into gw_rate_limit_windows (key_hash, window_start, hits)
      values (${keyHash}, floor(${storeEpochMs} / ${windowMs})::bigint * ${windowMs}, 1)
      on conflict (key_hash, window_start) do update set hits = gw_rate_limit_windows.hits + 1
      returning hits, window_start + ${windowMs} - ${storeEpochMs} as ttl_ms`.execute(this.db);
    const row = rows[0]!;
    return { hits: row.hits, ttlMs: Math.ceil(Number(row.ttl_ms)) };
  }

  /** Forgets windows that started more than `olderThanMs` ago. */
  async purge(olderThanMs: number): Promise<void> {
    await this.db
      .deleteFrom('gw_rate_limit_windows')
      .where(sql<boolean>`window_start < ${storeEpochMs} - ${olderThanMs}`)
      .execute();
  }
}
