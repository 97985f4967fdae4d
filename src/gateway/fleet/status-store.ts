/**
 * Each branch's agent as the gateway last saw it (gw_agent_status) and its connections
 * (gw_agent_connections), written by the hub as agents connect, beat and leave, read by the
 * fleet endpoints together with the job log. Rows outlive the connection: a branch whose agent
 * went away still shows what it last said and when.
 */
import { sql, type Kysely } from 'kysely';
import type { AgentHealth } from '../../protocol/messages.js';
import { MAX_LISTED_CONNECTIONS, type BranchDetail, type BranchStatus, type FleetListQuery } from '../../protocol/fleet.js';
import { toPage, type Page } from '../../protocol/common.js';
import type { GatewayDatabase } from '../store-schema.js';
import { activityOf, operationsOf } from './job-statistics.js';

export interface AgentIdentity {
  licenseKey: string;
  workerId: string;
  agentVersion: string;
  nodeVersion: string | null;
  os: string | null;
  posVersion: string | null;
  agentStartedAt: Date | null;
}

export interface HealthReport {
  health: AgentHealth;
  clockOffsetMs: number | null;
}

function healthColumns(report: HealthReport) {
  const { health, clockOffsetMs } = report;
  return {
    pos_state: health.posDatabase,
    jobs_running: health.jobsRunning,
    clock_offset_ms: clockOffsetMs,
    // A heartbeat without an error keeps the last one: "the last error" is history, not state.
    ...(health.lastError ? { last_error: health.lastError.message, last_error_at: new Date(health.lastError.at) } : {}),
  };
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

/**
 * Without a heartbeat for this long an agent counts as offline whatever its row says: a gateway
 * that died never wrote that its agents left. Agents beat every 15 s by default.
 */
const STALE_AFTER_MS = 90_000;

/**
 * The branch server's clock minus the gateway's: the agent stamped `sentAt` about half a round
 * trip before the gateway received the message.
 */
export function clockOffsetMs(sentAt: string, receivedAt: number, roundTripMs: number): number {
  return Math.round(Date.parse(sentAt) - (receivedAt - roundTripMs / 2));
}

export class FleetStatusStore {
  constructor(
    private readonly db: Kysely<GatewayDatabase>,
    private readonly staleAfterMs = STALE_AFTER_MS,
  ) {}

  /** A hello: the branch's row says who is connected now, and a connection starts (any left open by a dead gateway ends). */
  async connected(agent: AgentIdentity, report: HealthReport | null, at: Date): Promise<void> {
    const row = {
      online: true,
      worker_id: agent.workerId,
      agent_version: agent.agentVersion,
      node_version: agent.nodeVersion,
      os: agent.os,
      pos_version: agent.posVersion,
      agent_started_at: agent.agentStartedAt,
      connected_since: at,
      last_seen: at,
      ...(report ? healthColumns(report) : { pos_state: null, jobs_running: 0, clock_offset_ms: null }),
    };
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('gw_agent_status')
        .values({ license_key: agent.licenseKey, ...row })
        .onConflict((oc) => oc.column('license_key').doUpdateSet(row))
        .execute();
      await trx
        .updateTable('gw_agent_connections')
        .set({ disconnected_at: at })
        .where('license_key', '=', agent.licenseKey)
        .where('disconnected_at', 'is', null)
        .execute();
      await trx.insertInto('gw_agent_connections').values({ license_key: agent.licenseKey, worker_id: agent.workerId, connected_at: at }).execute();
    });
  }

  async heartbeat(licenseKey: string, workerId: string, report: HealthReport, at: Date): Promise<void> {
    await this.db
      .updateTable('gw_agent_status')
      .set({ ...healthColumns(report), last_seen: at })
      .where('license_key', '=', licenseKey)
      .where('worker_id', '=', workerId)
      .execute();
  }

  /** The connection ended; a newer connection of the branch (another worker) is left as it is. */
  async disconnected(licenseKey: string, workerId: string, at: Date): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('gw_agent_status')
        .set({ online: false, last_seen: at, jobs_running: 0 })
        .where('license_key', '=', licenseKey)
        .where('worker_id', '=', workerId)
        .execute();
      await trx
        .updateTable('gw_agent_connections')
        .set({ disconnected_at: at })
        .where('license_key', '=', licenseKey)
        .where('worker_id', '=', workerId)
        .where('disconnected_at', 'is', null)
        .execute();
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

  /** The user's branches, the offline ones first (they are what the list is read for), then by license key. */
  async list(userId: number, query: FleetListQuery, now = new Date()): Promise<Page<BranchStatus>> {
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
  async detail(userId: number, licenseKey: string, now = new Date()): Promise<BranchDetail | undefined> {
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
  clock_offset_ms: number | null;
  last_error: string | null;
  last_error_at: Date | null;
}

function toStatus(r: StatusRow): Omit<BranchStatus, 'last24h'> {
  const online = r.online === true || r.online === 1;
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
      online && r.agent_started_at ? Math.max(0, Math.round((Date.now() - (new Date(r.agent_started_at).getTime() - (r.clock_offset_ms ?? 0))) / 1000)) : null,
    jobsRunning: online ? (r.jobs_running ?? 0) : null,
    clockOffsetMs: r.clock_offset_ms,
    lastError: r.last_error !== null && r.last_error_at !== null ? { message: r.last_error, at: new Date(r.last_error_at).toISOString() } : null,
  };
}
