/**
 * Each branch's agent as the gateway last saw it (gw_agent_status) and its connections
 * (gw_agent_connections), written by the hub as agents connect, beat and leave, read by the
 * fleet endpoints together with the job log. Rows outlive the connection: a branch whose agent
 * went away still shows what it last said and when.
 */
import { sql, type Kysely } from 'kysely';
import { MAX_LISTED_CONNECTIONS, type BranchDetail, type BranchStatus, type FleetListQuery } from '../../protocol/fleet.js';
import { toPage, type Page } from '../../protocol/common.js';
import type { GatewayDatabase } from '../store-schema.js';
import { storeNow, storeTimesOf } from '../store-time.js';
import type { HealthReport, StatusChange, StatusWriter } from '../hub/agent-status.js';
import { activityOf, operationsOf } from './job-statistics.js';
import { toStorableText } from '../unstorable-text.js';

type Connected = Extract<StatusChange, { kind: 'connected' }>;
type Heartbeat = Extract<StatusChange, { kind: 'heartbeat' }>;
type Disconnected = Extract<StatusChange, { kind: 'disconnected' }>;

const NO_HEALTH = { posState: null, clockOffsetMs: null, lastError: null, lastErrorAt: null };

/**
 * What an agent said, as the store can keep it: NUL or a lone surrogate (a compromised branch
 * server, or an error text read from a device) made PostgreSQL refuse the branch's whole row.
 */
const storable = <T extends string | null>(text: T): T => (text === null ? text : (toStorableText(text) as T));

/** A report's columns; no error (null) keeps the branch's last one. */
function healthValues({ health, clockOffsetMs }: HealthReport) {
  return {
    posState: health.posDatabase,
    jobsRunning: health.jobsRunning,
    clockOffsetMs,
    lastError: health.lastError ? storable(health.lastError.message) : null,
    lastErrorAt: health.lastError ? new Date(health.lastError.at) : null,
  };
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

/**
 * Without a heartbeat for this long an agent counts as offline whatever its row says: a gateway
 * that died never wrote that its agents left. Agents beat every 15 s by default.
 */
const STALE_AFTER_MS = 90_000;

export class FleetStatusStore implements StatusWriter {
  constructor(
    private readonly db: Kysely<GatewayDatabase>,
    private readonly staleAfterMs = STALE_AFTER_MS,
  ) {}

  /**
   * Writes status changes of one kind, each of a different branch, with one statement per table
   * whatever their number: at ten thousand agents beating every 15 s, a statement per heartbeat
   * would be hundreds a second.
   */
  async write(changes: ReadonlyArray<StatusChange>): Promise<void> {
    const kind = changes[0]?.kind;
    if (kind === 'connected') await this.#connected(changes as ReadonlyArray<Connected>);
    else if (kind === 'heartbeat') await this.#heartbeats(changes as ReadonlyArray<Heartbeat>);
    else if (kind === 'disconnected') await this.#disconnected(changes as ReadonlyArray<Disconnected>);
  }

  /**
   * Hellos: each branch's row says who is connected now, and a connection starts (any left open
   * by a dead gateway ends). A branch deleted meanwhile is skipped, not an error for the others.
   */
  async #connected(changes: ReadonlyArray<Connected>): Promise<void> {
    const agents = changes.map(({ agent: a }) => ({
      ...a,
      workerId: storable(a.workerId),
      agentVersion: storable(a.agentVersion),
      nodeVersion: storable(a.nodeVersion),
      os: storable(a.os),
      posVersion: storable(a.posVersion),
    }));
    const at = storeTimesOf(changes.map((c) => c.at));
    const health = changes.map((c) => (c.report ? healthValues(c.report) : { ...NO_HEALTH, jobsRunning: 0 }));
    const keys = agents.map((a) => a.licenseKey);
    const workers = agents.map((a) => a.workerId);
    const ids = changes.map((c) => c.connectionId);
    await this.db.transaction().execute(async (trx) => {
      await sql`
        INSERT INTO gw_agent_status (license_key, online, worker_id, agent_version, node_version, os, pos_version, agent_started_at,
          connected_since, connection_id, last_seen, pos_state, jobs_running, clock_offset_ms, last_error, last_error_at)
        SELECT v.license_key, true, v.worker_id, v.agent_version, v.node_version, v.os, v.pos_version, v.agent_started_at,
          v.at, v.connection_id, v.at, v.pos_state, v.jobs_running, v.clock_offset_ms, v.last_error, v.last_error_at
        FROM unnest(${keys}::text[], ${workers}::text[], ${ids}::uuid[], ${agents.map((a) => a.agentVersion)}::text[],
          ${agents.map((a) => a.nodeVersion)}::text[], ${agents.map((a) => a.os)}::text[], ${agents.map((a) => a.posVersion)}::text[],
          ${agents.map((a) => a.agentStartedAt)}::timestamptz[], ${at}, ${health.map((h) => h.posState)}::text[],
          ${health.map((h) => h.jobsRunning)}::int[], ${health.map((h) => h.clockOffsetMs)}::bigint[], ${health.map((h) => h.lastError)}::text[],
          ${health.map((h) => h.lastErrorAt)}::timestamptz[])
          AS v(license_key, worker_id, connection_id, agent_version, node_version, os, pos_version, agent_started_at, at, pos_state,
            jobs_running, clock_offset_ms, last_error, last_error_at)
        JOIN gw_branches b ON b.license_key = v.license_key
        ON CONFLICT (license_key) DO UPDATE SET
          online = true, worker_id = excluded.worker_id, agent_version = excluded.agent_version, node_version = excluded.node_version,
          os = excluded.os, pos_version = excluded.pos_version, agent_started_at = excluded.agent_started_at,
          connected_since = excluded.connected_since, connection_id = excluded.connection_id, last_seen = excluded.last_seen, pos_state = excluded.pos_state,
          jobs_running = excluded.jobs_running, clock_offset_ms = excluded.clock_offset_ms,
          last_error = coalesce(excluded.last_error, gw_agent_status.last_error),
          last_error_at = coalesce(excluded.last_error_at, gw_agent_status.last_error_at)`.execute(trx);
      await sql`
        UPDATE gw_agent_connections c SET disconnected_at = v.at
        FROM unnest(${keys}::text[], ${at}) AS v(license_key, at)
        WHERE c.license_key = v.license_key AND c.disconnected_at IS NULL`.execute(trx);
      await sql`
        INSERT INTO gw_agent_connections (license_key, worker_id, connection_id, connected_at)
        SELECT v.license_key, v.worker_id, v.connection_id, v.at
        FROM unnest(${keys}::text[], ${workers}::text[], ${ids}::uuid[], ${at}) AS v(license_key, worker_id, connection_id, at)
        JOIN gw_branches b ON b.license_key = v.license_key`.execute(trx);
    });
  }

  /**
   * Last seen never goes back: a moment is brought to the store's clock from when its batch is
   * written (store-time.ts), so a heartbeat just after a hello could land a few milliseconds
   * before the connection's start when the hello's batch waited longer (seen in CI: 11 ms).
   */
  async #heartbeats(changes: ReadonlyArray<Heartbeat>): Promise<void> {
    const health = changes.map((c) => healthValues(c.report));
    await sql`
      UPDATE gw_agent_status s SET pos_state = v.pos_state, jobs_running = v.jobs_running, clock_offset_ms = v.clock_offset_ms,
        last_seen = greatest(v.at, s.last_seen), last_error = coalesce(v.last_error, s.last_error), last_error_at = coalesce(v.last_error_at, s.last_error_at)
      FROM unnest(${changes.map((c) => c.licenseKey)}::text[], ${changes.map((c) => storable(c.workerId))}::text[], ${storeTimesOf(changes.map((c) => c.at))},
        ${health.map((h) => h.posState)}::text[], ${health.map((h) => h.jobsRunning)}::int[], ${health.map((h) => h.clockOffsetMs)}::bigint[],
        ${health.map((h) => h.lastError)}::text[], ${health.map((h) => h.lastErrorAt)}::timestamptz[])
        AS v(license_key, worker_id, at, pos_state, jobs_running, clock_offset_ms, last_error, last_error_at)
      WHERE s.license_key = v.license_key AND s.worker_id = v.worker_id`.execute(this.db);
  }

  /**
   * Connections that ended, each matched by its id: the same agent's newer connection (on another
   * instance, or here after a half-open link) may have been written first, and the older one's
   * end must not mark it offline or ended. A row written before connection ids is matched by its
   * worker, as it was then.
   */
  async #disconnected(changes: ReadonlyArray<Disconnected>): Promise<void> {
    const keys = changes.map((c) => c.licenseKey);
    const workers = changes.map((c) => storable(c.workerId));
    const ids = changes.map((c) => c.connectionId);
    const at = storeTimesOf(changes.map((c) => c.at));
    const ended = sql`unnest(${keys}::text[], ${workers}::text[], ${ids}::uuid[], ${at}) AS v(license_key, worker_id, connection_id, at)`;
    await this.db.transaction().execute(async (trx) => {
      await sql`
        UPDATE gw_agent_status s SET online = false, last_seen = v.at, jobs_running = 0
        FROM ${ended}
        WHERE s.license_key = v.license_key
          AND (s.connection_id = v.connection_id OR (s.connection_id IS NULL AND s.worker_id = v.worker_id))`.execute(trx);
      await sql`
        UPDATE gw_agent_connections c SET disconnected_at = v.at
        FROM ${ended}
        WHERE c.license_key = v.license_key AND c.disconnected_at IS NULL
          AND (c.connection_id = v.connection_id OR (c.connection_id IS NULL AND c.worker_id = v.worker_id))`.execute(trx);
    });
  }

  #statusQuery(userId: number, now: Date) {
    const fresh = new Date(now.getTime() - this.staleAfterMs);
    return this.db
      .selectFrom('gw_branches as b')
      .leftJoin('gw_agent_status as s', 's.license_key', 'b.license_key')
      .where('b.user_id', '=', userId)
      .select((eb) => [
        'b.license_key',
        'b.name',
        eb.and([eb('s.online', '=', true), eb('s.last_seen', '>=', fresh)]).as('online'),
        's.worker_id',
        's.agent_version',
        's.node_version',
        's.os',
        's.pos_version',
        's.pos_state',
        's.connected_since',
        's.last_seen',
        's.agent_started_at',
        's.jobs_running',
        's.clock_offset_ms',
        's.last_error',
        's.last_error_at',
      ]);
  }

  /**
   * The user's branches, the offline ones first (they are what the list is read for), then by
   * license key. Online and the last 24 hours are by the store's clock, which every instance
   * writes its agents' times on.
   */
  async list(userId: number, query: FleetListQuery): Promise<Page<BranchStatus>> {
    const now = await storeNow(this.db);
    const fresh = new Date(now.getTime() - this.staleAfterMs);
    let q = this.#statusQuery(userId, now);
    if (query.online !== undefined) {
      q = q.where((eb) => {
        const online = eb.and([eb('s.online', '=', true), eb('s.last_seen', '>=', fresh)]);
        return query.online ? online : eb.not(eb.fn.coalesce(online, sql<boolean>`false`));
      });
    }
    if (query.version !== undefined) q = q.where('s.agent_version', '=', query.version);
    if (query.search) {
      const pattern = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q = q.where((eb) => eb.or([eb('b.license_key', 'ilike', pattern), eb('b.name', 'ilike', pattern)]));
    }
    const counted = await q
      .clearSelect()
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    const rows = await q
      // The selected `online`: null for a branch whose agent never connected, false or true.
      .orderBy(sql`online nulls first`)
      .orderBy('b.license_key')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute();
    const activity = await activityOf(
      this.db,
      rows.map((r) => r.license_key),
      dayBefore(now),
    );
    return toPage(
      rows.map((r) => ({ ...toStatus(r), last24h: activity.get(r.license_key)! })),
      Number(counted.n),
      query.page,
      query.pageSize,
    );
  }

  /** One of the user's branches with its last 24 hours, or undefined when it is not the user's. */
  async detail(userId: number, licenseKey: string): Promise<BranchDetail | undefined> {
    const now = await storeNow(this.db);
    const row = await this.#statusQuery(userId, now).where('b.license_key', '=', licenseKey).executeTakeFirst();
    if (!row) return undefined;
    const since = dayBefore(now);
    const [disconnections, connections, activity, operations] = await Promise.all([
      this.db
        .selectFrom('gw_agent_connections')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('license_key', '=', licenseKey)
        .where('disconnected_at', '>=', since)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('gw_agent_connections')
        .select(['worker_id', 'connected_at', 'disconnected_at'])
        .where('license_key', '=', licenseKey)
        .where((eb) => eb.or([eb('disconnected_at', 'is', null), eb('disconnected_at', '>=', since)]))
        .orderBy('connected_at', 'desc')
        .orderBy('id', 'desc')
        .limit(MAX_LISTED_CONNECTIONS)
        .execute(),
      activityOf(this.db, [licenseKey], since),
      operationsOf(this.db, licenseKey, since),
    ]);
    return {
      ...toStatus(row),
      last24h: {
        ...activity.get(licenseKey)!,
        disconnections: Number(disconnections.n),
        operations,
        connections: connections.map((c) => ({ workerId: c.worker_id, connectedAt: iso(c.connected_at)!, disconnectedAt: iso(c.disconnected_at) })),
      },
    };
  }
}

const dayBefore = (now: Date) => new Date(now.getTime() - 24 * 3_600_000);

interface StatusRow {
  license_key: string;
  name: string;
  online: boolean | 0 | 1 | null;
  worker_id: string | null;
  agent_version: string | null;
  node_version: string | null;
  os: string | null;
  pos_version: string | null;
  pos_state: string | null;
  connected_since: Date | null;
  last_seen: Date | null;
  agent_started_at: Date | null;
  jobs_running: number | null;
  clock_offset_ms: string | null;
  last_error: string | null;
  last_error_at: Date | null;
}

function toStatus(r: StatusRow): Omit<BranchStatus, 'last24h'> {
  const online = r.online === true || r.online === 1;
  const clockOffsetMs = r.clock_offset_ms === null ? null : Number(r.clock_offset_ms);
  return {
    licenseKey: r.license_key,
    name: r.name,
    online,
    workerId: r.worker_id,
    agentVersion: r.agent_version,
    nodeVersion: r.node_version,
    os: r.os,
    posVersion: r.pos_version,
    posDatabase: r.pos_state === 'ok' || r.pos_state === 'unreachable' ? r.pos_state : null,
    connectedSince: online ? iso(r.connected_since) : null,
    lastSeen: iso(r.last_seen),
    // The start is on the agent's clock: brought to the gateway's by the offset.
    uptimeSec:
      online && r.agent_started_at ? Math.max(0, Math.round((Date.now() - (new Date(r.agent_started_at).getTime() - (clockOffsetMs ?? 0))) / 1000)) : null,
    jobsRunning: online ? (r.jobs_running ?? 0) : null,
    clockOffsetMs,
    lastError: r.last_error !== null && r.last_error_at !== null ? { message: r.last_error, at: new Date(r.last_error_at).toISOString() } : null,
  };
}
