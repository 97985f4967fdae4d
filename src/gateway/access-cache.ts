/**
 * The store's cached API-key and branch-owner lookups. While the gateway hears every change to
 * them (access-changes.ts: a change forgets what it names, a reconnect forgets everything), an
 * entry stays until the least recently used go. While it does not, an entry older than
 * UNHEARD_MAX_AGE_MS is read again: a change nobody heard is seen within that bound.
 *
 * A gateway of ten thousand branches asks for each owner every few seconds to minutes: with a
 * bare 30 s expiry most of those asks were a query although nothing had changed.
 */
import { sql, type Kysely } from 'kysely';
import { LruMap } from 'toad-cache';
import type { GatewayDatabase } from './store-schema.js';

export const UNHEARD_MAX_AGE_MS = 30_000;

/**
 * Payloads: `keys` (an API key was added or revoked), `branch:<licenseKey>` (new token or owner),
 * `printer:<id>` (a printer's address or branch changed).
 */
export const ACCESS_CHANNEL = 'gw_access_changed';

/** Tells every listening gateway, when this transaction commits, that keys, a branch or a printer changed. */
export async function announce(trx: Kysely<GatewayDatabase>, payload: string): Promise<void> {
  await sql`select pg_notify(${ACCESS_CHANNEL}, ${payload})`.execute(trx);
}

export interface AccessHearing {
  /** True while a listener hears every announced change. */
  heard(): boolean;
  now(): number;
}

export class AccessCache<V> {
  readonly #entries: LruMap<{ value: V; at: number }>;

  constructor(
    max: number,
    private readonly hearing: AccessHearing,
  ) {
    this.#entries = new LruMap(max);
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (!this.hearing.heard() && this.hearing.now() - entry.at >= UNHEARD_MAX_AGE_MS) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    this.#entries.set(key, { value, at: this.hearing.now() });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
