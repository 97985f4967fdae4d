/**
 * The agent's outbox (`ba_event_outbox`): events a poll detected, kept until the gateway says it
 * has stored them. Oldest first, so the gateway receives a branch's events in the order they
 * were seen.
 */
import type { BranchEvent } from '../../protocol/events.js';
import type { PosDb } from '../schema.js';

/**
 * One statement per event: SQL Server does not promise to number the rows of a multi-row
 * INSERT in their VALUES order, and the identity is what orders the outbox.
 */
export async function queueEvents(trx: PosDb, events: readonly BranchEvent[]): Promise<void> {
  for (const e of events)
    await trx
      .insertInto('ba_event_outbox')
      .values({ event_id: e.id, event: JSON.stringify(e) })
      .execute();
}

/** The oldest `limit` events not yet acknowledged. */
export async function pendingEvents(db: PosDb, limit: number): Promise<BranchEvent[]> {
  const rows = await db.selectFrom('ba_event_outbox').select('event').orderBy('seq').offset(0).fetch(limit).execute();
  return rows.map((r) => JSON.parse(r.event) as BranchEvent);
}

/** Forgets events the gateway has stored. */
export async function forgetEvents(db: PosDb, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500)
    await db
      .deleteFrom('ba_event_outbox')
      .where('event_id', 'in', ids.slice(i, i + 500))
      .execute();
}
