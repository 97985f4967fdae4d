/**
 * Times that one gateway instance writes and another compares (leases, claims, last seen, the
 * job log, rate-limit windows) are on the store's clock: instances sharing a store may disagree
 * by minutes. An instance measures only durations on its own clock, and turns a moment it saw
 * into the store's time by how long ago that was.
 *
 * now() is the transaction's start: every statement of one transaction sees the same time, as
 * the columns' defaults do.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';

/** The store's time `ms` from now (before, when negative). */
export function storeNowPlus(ms: number): RawBuilder<Date> {
  return sql<Date>`now() + ${ms} * interval '1 millisecond'`;
}

/** A moment on this instance's clock, on the store's: the store's now, less how long ago it was. */
export function storeTimeOf(at: Date): RawBuilder<Date> {
  return storeNowPlus(at.getTime() - Date.now());
}

/** Moments on this instance's clock as a timestamptz[] on the store's, in their order (for unnest). */
export function storeTimesOf(ats: readonly Date[]): RawBuilder<Date[]> {
  const now = Date.now();
  const offsets = ats.map((at) => at.getTime() - now);
  return sql<Date[]>`array(select now() + o * interval '1 millisecond' from unnest(${offsets}::float8[]) with ordinality as t(o, i) order by i)`;
}

/** The store's time now, for reads that compare several rows against it. */
export async function storeNow<DB>(db: Kysely<DB>): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`select now() as now`.execute(db);
  return rows[0]!.now;
}
