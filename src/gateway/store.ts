/**
 * The gateway's own PostgreSQL: users, hashed API keys, branches with hashed agent tokens,
 * idempotency records, printers, the job log, events and webhooks. Lookups on the request path are cached briefly
 * so a request costs no store round trip; every change to keys, branches and printers is
 * announced on ACCESS_CHANNEL, so running gateways forget those lookups at once (./access-changes.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { createPgPool } from '../postgres-pool.js';
import { AccessCache, announce } from './access-cache.js';
import type { ApiKeyListing, BranchListing } from './access-listing.js';
import { BatchedLookup } from './batched-lookup.js';
import { migrationsDir, runMigrations } from '../sql-migrations.js';
import { gatewayDefaults } from '../config/schema.js';
import { EventStore } from './event-store.js';
import { FleetStatusStore } from './fleet/status-store.js';
import { ReleaseStore } from './fleet/release-store.js';
import { RolloutStore } from './fleet/rollout-store.js';
import { PrinterStore } from './printer-store.js';
import { RateLimitWindows } from './rate-limit-windows.js';
import { WebhookStore } from './webhook-store.js';
import { sha256 } from './secrets.js';
import { DEFAULT_SCOPES, SCOPES, type Scope } from './scopes.js';
import type { GatewayDatabase } from './store-schema.js';
import { storeNowPlus, storeTimeOf } from './store-time.js';
import { toStorableText } from './unstorable-text.js';

export type { GatewayDatabase } from './store-schema.js';

export interface IdempotencyRecord {
  fingerprint: string;
  state: 'running' | 'done';
  status_code: number | null;
  body: string | null;
  job_id: string | null;
}

/**
 * What an agent sent (its worker id, an error code) with the characters no text column keeps
 * replaced, and the start on the store's clock: the fleet view and the purge of any instance
 * compare it with theirs.
 */
function storableJobLogRow(row: GatewayDatabase['gw_job_log']) {
  const text = (value: string | null) => (value === null ? null : toStorableText(value));
  return { ...row, worker_id: text(row.worker_id), error_code: text(row.error_code), started_at: storeTimeOf(row.started_at) };
}

/** Rows a purge deletes per statement, so no purge holds a long transaction. */
const PURGE_BATCH = 5_000;

/** Who an API key belongs to and what it may do. */
export interface ApiKeyOwner {
  userId: number;
  scopes: readonly Scope[];
}

export interface StoreOptions {
  /**
   * How many API-key lookups are cached (unknown keys included), and as many branch owners; the
   * least recently used go first, so a flood of unknown keys cannot grow the process.
   */
  apiKeyCacheSize?: number;
  /** The clock the caches age by (Date.now unless given). */
  now?: () => number;
}

export class GatewayStore {
  readonly db: Kysely<GatewayDatabase>;
  /** The printer registry (gw_printers). */
  readonly printers: PrinterStore;
  /** Events, the feed and webhook deliveries (gw_events, gw_deliveries). */
  readonly events: EventStore;
  readonly webhooks: WebhookStore;
  /** Each branch's agent as last seen (gw_agent_status, gw_agent_connections). */
  readonly fleet: FleetStatusStore;
  /** Published agent releases (gw_releases, gw_release_chunks). */
  readonly releases: ReleaseStore;
  /** Rollouts and each branch's progress (gw_rollouts, gw_rollout_targets). */
  readonly rollouts: RolloutStore;
  /** Counted only by gateways in cluster mode. */
  readonly rateLimits: RateLimitWindows;
  readonly #keys: AccessCache<ApiKeyOwner | null>;
  readonly #owners: AccessCache<number | null>;
  #heard = false;
  readonly #ownerLookups = new BatchedLookup((licenseKeys: string[]) => this.#ownersOf(licenseKeys), null);
  // Bumped whenever cached lookups are forgotten: an answer read before a change committed must
  // not be cached after the change was announced.
  #accessGeneration = 0;

  constructor(
    readonly url: string,
    opts: StoreOptions = {},
  ) {
    this.db = new Kysely<GatewayDatabase>({ dialect: new PostgresDialect({ pool: createPgPool({ connectionString: url, max: 10 }) }) });
    this.events = new EventStore(this.db);
    this.webhooks = new WebhookStore(this.db);
    this.fleet = new FleetStatusStore(this.db);
    this.releases = new ReleaseStore(this.db);
    this.rollouts = new RolloutStore(this.db);
    this.rateLimits = new RateLimitWindows(this.db);
    const cacheSize = opts.apiKeyCacheSize ?? gatewayDefaults().apiKeyCacheSize;
    const hearing = { heard: () => this.#heard, now: opts.now ?? Date.now };
    this.#keys = new AccessCache(cacheSize, hearing);
    this.#owners = new AccessCache(cacheSize, hearing);
    this.printers = new PrinterStore(this.db, new AccessCache(cacheSize, hearing));
  }

  async migrate(): Promise<string[]> {
    return runMigrations(this.db, migrationsDir('postgres', 'gateway'), 'postgres', 'gw_schema_version');
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  /** The user owning an API key and its scopes, or null. The hash is compared again in constant time. */
  async apiKeyOwner(apiKey: string): Promise<ApiKeyOwner | null> {
    const hash = sha256(apiKey);
    const cached = this.#keys.get(hash);
    if (cached !== undefined) return cached;
    const generation = this.#accessGeneration;
    const row = await this.db
      .selectFrom('gw_api_keys')
      .select(['user_id', 'key_hash', 'scopes'])
      .where('key_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const value = row && timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(hash)) ? { userId: Number(row.user_id), scopes: row.scopes } : null;
    if (generation === this.#accessGeneration) this.#keys.set(hash, value);
    return value;
  }

  /** The user owning an API key, or null. */
  async userForApiKey(apiKey: string): Promise<number | null> {
    return (await this.apiKeyOwner(apiKey))?.userId ?? null;
  }

  /** The license keys of the user's branches, in order. */
  async branchesOfUser(userId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('gw_branches').select('license_key').where('user_id', '=', userId).orderBy('license_key').execute();
    return rows.map((r) => r.license_key);
  }

  /**
   * The user owning a branch, or null when no such branch is registered. Every request naming a
   * branch asks; the ones not cached are read together with the others of the same turn.
   */
  async branchOwner(licenseKey: string): Promise<number | null> {
    const cached = this.#owners.get(licenseKey);
    if (cached !== undefined) return cached;
    const generation = this.#accessGeneration;
    const value = await this.#ownerLookups.get(licenseKey);
    if (generation === this.#accessGeneration) this.#owners.set(licenseKey, value);
    return value;
  }

  async #ownersOf(licenseKeys: string[]): Promise<Map<string, number>> {
    // One array parameter however many keys a turn brings, so the statement's text never changes.
    const rows = await this.db
      .selectFrom('gw_branches')
      .select(['license_key', 'user_id'])
      .where(sql<boolean>`license_key = any(${licenseKeys}::text[])`)
      .execute();
    return new Map(rows.map((r) => [r.license_key, Number(r.user_id)]));
  }

  /**
   * Whether a listener hears every announced change (access-changes.ts): while it does, cached
   * lookups stay until a change names them; while it does not, for UNHEARD_MAX_AGE_MS at most.
   */
  hearChanges(heard: boolean): void {
    this.#heard = heard;
  }

  /** Forgets every cached lookup: changes made while nobody listened are not replayed. */
  forgetAll(): void {
    this.forgetApiKeys();
    this.forgetBranch();
    this.printers.forget();
  }

  /** Forgets cached API-key lookups: a key was added or revoked (by any process). */
  forgetApiKeys(): void {
    this.#accessGeneration++;
    this.#keys.clear();
  }

  /** Forgets the cached owner of a branch, or of every branch. */
  forgetBranch(licenseKey?: string): void {
    this.#accessGeneration++;
    if (licenseKey === undefined) this.#owners.clear();
    else this.#owners.delete(licenseKey);
  }

  /** The branch an agent token was issued for, by the token's hash (SHA-256 hex), or null. */
  async branchForAgentTokenHash(hash: string): Promise<string | null> {
    const generation = this.#accessGeneration;
    const row = await this.db
      .selectFrom('gw_branches')
      .select(['license_key', 'agent_token_hash', 'user_id'])
      .where('agent_token_hash', '=', hash)
      .executeTakeFirst();
    if (!row || !timingSafeEqual(Buffer.from(row.agent_token_hash), Buffer.from(hash))) return null;
    // The branch's agent is connecting: its jobs follow, each checking the branch's owner. Read
    // here, that check costs no query of its own.
    if (generation === this.#accessGeneration) this.#owners.set(row.license_key, Number(row.user_id));
    return row.license_key;
  }

  async ensureUser(name: string): Promise<number> {
    const existing = await this.db.selectFrom('gw_users').select('id').where('name', '=', name).executeTakeFirst();
    if (existing) return Number(existing.id);
    const row = await this.db.insertInto('gw_users').values({ name }).returning('id').executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** Registers an API key for a user and returns its id; the caller shows the plain key once. */
  async addApiKey(userId: number, apiKey: string, label = '', scopes: readonly Scope[] = DEFAULT_SCOPES): Promise<number> {
    const row = await this.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('gw_api_keys')
        .values({ user_id: userId, key_hash: sha256(apiKey), label, scopes: SCOPES.filter((s) => scopes.includes(s)) })
        .returning('id')
        .executeTakeFirstOrThrow();
      await announce(trx, 'keys');
      return inserted;
    });
    this.forgetApiKeys();
    return Number(row.id);
  }

  /** Revokes an API key by id; false when there is no such key or it was already revoked. */
  async revokeApiKey(id: number): Promise<boolean> {
    const revoked = await this.db.transaction().execute(async (trx) => {
      const r = await trx.updateTable('gw_api_keys').set({ revoked_at: new Date() }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
      if (r.numUpdatedRows === 0n) return false;
      await announce(trx, 'keys');
      return true;
    });
    this.forgetApiKeys();
    return revoked;
  }

  /** Every API key (never the key itself, which is not kept), oldest first. */
  async listApiKeys(): Promise<ApiKeyListing[]> {
    const rows = await this.db
      .selectFrom('gw_api_keys')
      .innerJoin('gw_users', 'gw_users.id', 'gw_api_keys.user_id')
      .select(['gw_api_keys.id', 'gw_users.name as user', 'gw_api_keys.label', 'gw_api_keys.scopes', 'gw_api_keys.created_at', 'gw_api_keys.revoked_at'])
      .orderBy('gw_api_keys.id')
      .execute();
    return rows.map((r) => ({ id: Number(r.id), user: r.user, label: r.label, scopes: r.scopes, createdAt: r.created_at, revokedAt: r.revoked_at }));
  }

  /** Every registered branch, by license key. */
  async listBranches(): Promise<BranchListing[]> {
    const rows = await this.db
      .selectFrom('gw_branches')
      .innerJoin('gw_users', 'gw_users.id', 'gw_branches.user_id')
      .select(['gw_branches.license_key', 'gw_users.name as user', 'gw_branches.name', 'gw_branches.created_at'])
      .orderBy('gw_branches.license_key')
      .execute();
    return rows.map((r) => ({ licenseKey: r.license_key, user: r.user, name: r.name, createdAt: r.created_at }));
  }

  /** Registers (or re-keys) a branch for a user with a new agent token; the old token stops working. */
  async upsertBranch(userId: number, licenseKey: string, agentToken: string, name = ''): Promise<void> {
    const branch = { user_id: userId, name, agent_token_hash: sha256(agentToken) };
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('gw_branches')
        .values({ license_key: licenseKey, ...branch })
        .onConflict((oc) => oc.column('license_key').doUpdateSet(branch))
        .execute();
      await announce(trx, `branch:${licenseKey}`);
    });
    this.forgetBranch(licenseKey);
  }

  /**
   * Claims (user, key) for a new request, or returns the record that holds it. A running record
   * older than `staleAfterMs` belongs to a request whose gateway died: it is taken over, as is an
   * expired one. Of concurrent claims of one key exactly one succeeds. Ages are by the store's
   * clock: the claim being judged may have been made by another instance.
   */
  async claimIdempotencyKey(
    userId: number,
    key: string,
    fingerprint: string,
    retentionMs: number,
    staleAfterMs: number,
  ): Promise<{ claimed: true } | { claimed: false; record: IdempotencyRecord }> {
    for (;;) {
      const row = {
        fingerprint,
        state: 'running' as const,
        status_code: null,
        body: null,
        job_id: null,
        created_at: storeNowPlus(0),
        expires_at: storeNowPlus(retentionMs),
      };
      // One statement decides: PostgreSQL locks a conflicting row and evaluates the takeover
      // condition on its latest version, so a key another request has just claimed is not
      // claimed again (a read followed by an upsert let every concurrent request through).
      const claimed = await this.db
        .insertInto('gw_idempotency')
        .values({ user_id: userId, idem_key: key, ...row })
        .onConflict((oc) =>
          oc
            .columns(['user_id', 'idem_key'])
            .doUpdateSet(row)
            .where((eb) =>
              eb.or([
                eb('gw_idempotency.expires_at', '<', storeNowPlus(0)),
                eb.and([eb('gw_idempotency.state', '=', 'running'), eb('gw_idempotency.created_at', '<', storeNowPlus(-staleAfterMs))]),
              ]),
            ),
        )
        .returning('idem_key')
        .executeTakeFirst();
      if (claimed) return { claimed: true };
      const record = await this.db
        .selectFrom('gw_idempotency')
        .select(['fingerprint', 'state', 'status_code', 'body', 'job_id'])
        .where('user_id', '=', userId)
        .where('idem_key', '=', key)
        .executeTakeFirst();
      if (record) return { claimed: false, record };
      // Released between the two statements: the key is free again.
    }
  }

  async completeIdempotencyKey(userId: number, key: string, status: number, body: unknown, jobId: string | undefined): Promise<void> {
    await this.db
      .updateTable('gw_idempotency')
      .set({ state: 'done', status_code: status, body: JSON.stringify(body), job_id: jobId ?? null })
      .where('user_id', '=', userId)
      .where('idem_key', '=', key)
      .execute();
  }

  /** Forgets a claim whose outcome must not be replayed (agent unreachable, timeout). */
  async releaseIdempotencyKey(userId: number, key: string): Promise<void> {
    await this.db.deleteFrom('gw_idempotency').where('user_id', '=', userId).where('idem_key', '=', key).where('state', '=', 'running').execute();
  }

  /** Deletes the idempotency records past their retention (by the store's clock, as they were written); how many. */
  async purgeIdempotencyKeys(): Promise<number> {
    return this.#purge('gw_idempotency', 'expires_at', 0);
  }

  /** Deletes the job log entries of jobs started more than `olderThanMs` ago; how many. */
  async purgeJobLog(olderThanMs: number): Promise<number> {
    return this.#purge('gw_job_log', 'started_at', olderThanMs);
  }

  /** Ended agent connections (the fleet's disconnection counts) kept as long as the job log. */
  async purgeAgentConnections(olderThanMs: number): Promise<number> {
    return this.#purge('gw_agent_connections', 'disconnected_at', olderThanMs);
  }

  async #purge(
    table: 'gw_idempotency' | 'gw_job_log' | 'gw_agent_connections',
    column: 'expires_at' | 'started_at' | 'disconnected_at',
    olderThanMs: number,
  ): Promise<number> {
    let total = 0;
    for (;;) {
      const r =
        await sql`delete from ${sql.table(table)} where ctid in (select ctid from ${sql.table(table)} where ${sql.ref(column)} < ${storeNowPlus(-olderThanMs)} limit ${PURGE_BATCH})`.execute(
          this.db,
        );
      const deleted = Number(r.numAffectedRows ?? 0);
      total += deleted;
      if (deleted < PURGE_BATCH) return total;
    }
  }

  /** Writes job log entries; an agent's answer can carry any text, and none may fail the batch. */
  async insertJobLog(entries: ReadonlyArray<GatewayDatabase['gw_job_log']>): Promise<void> {
    if (entries.length === 0) return;
    await this.db
      .insertInto('gw_job_log')
      .values(entries.map(storableJobLogRow))
      // A job delivered twice is logged once; the batch is not lost over it.
      .onConflict((oc) => oc.column('job_id').doNothing())
      .execute();
  }
}
