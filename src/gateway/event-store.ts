/**
 * Events in the gateway's store (sql/postgres/gateway/005_events.sql): what agents report,
 * the per-branch feed, and the webhook deliveries with their attempts. An event is stored with
 * its deliveries in one transaction before the agent is told it may forget it; deliveries are
 * leased, so gateways sharing the store never send one twice at once.
 */
import { sql, type Kysely } from 'kysely';
import type { BranchEvent } from '../protocol/events.js';
import type { GatewayDatabase } from './store-schema.js';
import { storeNowPlus, storeTimeOf } from './store-time.js';

export interface StoredEvent {
  cursor: string;
  event: BranchEvent;
}

export interface LeasedDelivery {
  id: string;
  webhookId: string;
  url: string;
  secretSealed: string;
  eventId: string;
  payload: string;
  attemptCount: number;
  /** On this instance's clock (the store's, less the event's age), for retries it schedules. */
  eventCreatedAt: Date;
}

export interface AttemptOutcome {
  at: Date;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliveryListing {
  id: string;
  eventId: string;
  type: string;
  licenseKey: string | null;
  state: 'pending' | 'delivered' | 'failed';
  attemptCount: number;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
  attempts: AttemptOutcome[];
}

const ATTEMPTS_SHOWN = 20;

/** Deliveries of one user's webhooks in flight at once, over every gateway of the store. */
export const PER_USER_IN_FLIGHT = 4;

export class EventStore {
  constructor(private readonly db: Kysely<GatewayDatabase>) {}

  /**
   * Stores a branch's events (those of the branch already stored are skipped: same id, same event) and a
   * delivery of each new one to every webhook of the branch's owner that wants its type.
   * Returns how many were new.
   */
  async append(licenseKey: string, events: readonly BranchEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    return this.db.transaction().execute(async (trx) => {
      // One row at a time: seq must follow the order the branch produced them.
      const seqs: string[] = [];
      for (const e of events) {
        const row = await trx
          .insertInto('gw_events')
          .values({ event_id: e.id, license_key: licenseKey, type: e.type, payload: JSON.stringify(e) })
          // Per branch (migration 010): another branch's agent may have sent this id first.
          .onConflict((oc) => oc.columns(['license_key', 'event_id']).doNothing())
          .returning('seq')
          .executeTakeFirst();
        if (row) seqs.push(row.seq);
      }
      if (seqs.length === 0) return 0;
      await trx
        .insertInto('gw_deliveries')
        .columns(['webhook_id', 'event_seq', 'license_key', 'state'])
        .expression((eb) =>
          eb
            .selectFrom('gw_events as e')
            .innerJoin('gw_branches as b', 'b.license_key', 'e.license_key')
            .innerJoin('gw_webhooks as w', 'w.user_id', 'b.user_id')
            .select(['w.id', 'e.seq', 'b.license_key', sql.lit('pending').as('state')])
            .where('e.seq', 'in', seqs)
            .where(sql<boolean>`e.type = any(w.event_types)`)
            .where((w) => w.or([w('w.license_keys', 'is', null), sql<boolean>`e.license_key = any(w.license_keys)`]))
            .orderBy('e.seq'),
        )
        .execute();
      return seqs.length;
    });
  }

  /** A branch's events after a cursor, oldest first. */
  async feed(licenseKey: string, after: string | undefined, limit: number): Promise<StoredEvent[]> {
    let query = this.db.selectFrom('gw_events').select(['seq', 'payload']).where('license_key', '=', licenseKey);
    if (after !== undefined) query = query.where('seq', '>', after);
    const rows = await query.orderBy('seq').limit(limit).execute();
    return rows.map((r) => ({ cursor: String(r.seq), event: JSON.parse(r.payload) as BranchEvent }));
  }

  /** A branch's newest `count` events, oldest first. */
  async latest(licenseKey: string, count: number): Promise<StoredEvent[]> {
    const rows = await this.db
      .selectFrom('gw_events')
      .select(['seq', 'payload'])
      .where('license_key', '=', licenseKey)
      .orderBy('seq', 'desc')
      .limit(count)
      .execute();
    return rows.reverse().map((r) => ({ cursor: String(r.seq), event: JSON.parse(r.payload) as BranchEvent }));
  }

  /**
   * Leases up to `limit` due deliveries for `leaseMs`: the oldest pending one of each webhook
   * and branch, when its next attempt is due and no live lease holds it. The UPDATE checks the
   * lease again on the row it locks, so of two gateways leasing at once only one gets it. Due and
   * live are judged by the store's clock, which every gateway's leases are written on.
   */
  async leaseDue(limit: number, leaseMs: number): Promise<LeasedDelivery[]> {
    const now = sql<Date>`now()`;
    // Each user's oldest due deliveries first, round the users, and none for a user who already
    // has PER_USER_IN_FLIGHT leased (by any gateway): one user's receivers that take their whole
    // timeout must not hold back every other user's deliveries.
    const result = await sql<{
      id: string;
      webhook_id: string;
      url: string;
      secret_sealed: string;
      event_id: string;
      payload: string;
      attempt_count: number;
      event_age_ms: number;
    }>`
      with heads as (
        select distinct on (d.webhook_id, d.license_key) d.id, d.next_attempt_at, d.lease_until, w.user_id
        from gw_deliveries d join gw_webhooks w on w.id = d.webhook_id
        where d.state = 'pending'
        order by d.webhook_id, d.license_key, d.event_seq
      ), in_flight as (
        select user_id, count(*) as n from heads where lease_until >= ${now} group by user_id
      ), due as (
        select r.id from (
          select h.id, h.next_attempt_at,
            row_number() over (partition by h.user_id order by h.next_attempt_at) + coalesce(f.n, 0) as turn
          from heads h left join in_flight f on f.user_id = h.user_id
          where h.next_attempt_at <= ${now} and (h.lease_until is null or h.lease_until < ${now})
        ) r
        where r.turn <= ${PER_USER_IN_FLIGHT}
        order by r.turn, r.next_attempt_at limit ${limit}
      ), leased as (
        update gw_deliveries d set lease_until = ${storeNowPlus(leaseMs)}
        from due where d.id = due.id and d.state = 'pending' and (d.lease_until is null or d.lease_until < ${now})
        returning d.id, d.webhook_id, d.event_seq, d.attempt_count
      )
      select l.id, l.webhook_id, w.url, w.secret_sealed, e.event_id, e.payload, l.attempt_count,
        extract(epoch from ${now} - e.created_at) * 1000 as event_age_ms
      from leased l join gw_webhooks w on w.id = l.webhook_id join gw_events e on e.seq = l.event_seq
      order by l.event_seq`.execute(this.db);
    const here = Date.now();
    return result.rows.map((r) => ({
      id: String(r.id),
      webhookId: r.webhook_id,
      url: r.url,
      secretSealed: r.secret_sealed,
      eventId: r.event_id,
      payload: r.payload,
      attemptCount: Number(r.attempt_count),
      eventCreatedAt: new Date(here - Number(r.event_age_ms)),
    }));
  }

  /**
   * Records an attempt and what follows it: delivered, another attempt at `retryAt`, or given
   * up (`retryAt` null). One transaction: the attempt and the delivery's state agree. The times
   * are this instance's, stored on the store's clock, which leaseDue compares them with.
   */
  async recordAttempt(deliveryId: string, attempt: AttemptOutcome, outcome: { delivered: true } | { delivered: false; retryAt: Date | null }): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('gw_delivery_attempts')
        .values({ delivery_id: deliveryId, at: storeTimeOf(attempt.at), status: attempt.status, error: attempt.error, duration_ms: attempt.durationMs })
        .execute();
      const state = outcome.delivered ? 'delivered' : outcome.retryAt ? 'pending' : 'failed';
      await trx
        .updateTable('gw_deliveries')
        .set((eb) => ({
          state,
          attempt_count: eb('attempt_count', '+', 1),
          lease_until: null,
          ...(outcome.delivered ? { delivered_at: storeTimeOf(attempt.at) } : outcome.retryAt ? { next_attempt_at: storeTimeOf(outcome.retryAt) } : {}),
        }))
        .where('id', '=', deliveryId)
        .execute();
    });
  }

  /**
   * Stores a test event (of no branch, so in no feed) with a delivery to one webhook, leased
   * to the caller, who sends it at once and records the one attempt.
   */
  async addTestDelivery(webhookId: string, eventId: string, type: string, payload: string, leaseMs: number): Promise<string> {
    return this.db.transaction().execute(async (trx) => {
      const event = await trx
        .insertInto('gw_events')
        .values({ event_id: eventId, license_key: null, type, payload })
        .returning('seq')
        .executeTakeFirstOrThrow();
      const delivery = await trx
        .insertInto('gw_deliveries')
        .values({ webhook_id: webhookId, event_seq: event.seq, license_key: '', state: 'pending', lease_until: storeNowPlus(leaseMs) })
        .returning('id')
        .executeTakeFirstOrThrow();
      return String(delivery.id);
    });
  }

  /** A webhook's most recent deliveries, newest first, each with its latest attempts. */
  async listDeliveries(webhookId: string, limit: number): Promise<DeliveryListing[]> {
    const rows = await this.db
      .selectFrom('gw_deliveries as d')
      .innerJoin('gw_events as e', 'e.seq', 'd.event_seq')
      .select(['d.id', 'e.event_id', 'e.type', 'e.license_key', 'd.state', 'd.attempt_count', 'd.next_attempt_at', 'd.delivered_at', 'd.created_at'])
      .where('d.webhook_id', '=', webhookId)
      .orderBy('d.id', 'desc')
      .limit(limit)
      .execute();
    const attempts =
      rows.length === 0
        ? []
        : await this.db
            .selectFrom('gw_delivery_attempts')
            .select(['delivery_id', 'at', 'status', 'error', 'duration_ms'])
            .where(
              'delivery_id',
              'in',
              rows.map((r) => r.id),
            )
            .orderBy('id', 'desc')
            .execute();
    return rows.map((r) => ({
      id: String(r.id),
      eventId: r.event_id,
      type: r.type,
      licenseKey: r.license_key,
      state: r.state,
      attemptCount: r.attempt_count,
      nextAttemptAt: r.state === 'pending' ? r.next_attempt_at : null,
      deliveredAt: r.delivered_at,
      createdAt: r.created_at,
      attempts: attempts
        .filter((a) => a.delivery_id === r.id)
        .slice(0, ATTEMPTS_SHOWN)
        .map((a) => ({ at: a.at, status: a.status, error: a.error, durationMs: a.duration_ms })),
    }));
  }

  /** Deletes events stored more than `olderThanMs` ago (by the store's clock), with their deliveries; how many. */
  async purgeEvents(olderThanMs: number): Promise<number> {
    const r = await this.db.deleteFrom('gw_events').where('created_at', '<', storeNowPlus(-olderThanMs)).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
