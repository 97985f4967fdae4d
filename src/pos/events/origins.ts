/**
 * Which records a write job changed, marked in the job's own transaction (`ba_event_origins`):
 * the poll that finds those changes reports them as made through the API, by that job. A
 * terminal's change to the same record within the same poll is reported with it, as one event.
 * Each write operation declares what it changes with its definition (`marks`, protocol/operation.ts).
 */
import type { OriginKind, OriginMark } from '../../protocol/operation.js';
import type { PosDb } from '../schema.js';
import type { OriginRow } from '../sql-dialect.js';

/** The rows that mark the records a job changed, as its operation declares them. */
export function originRows(jobId: string, declared: ReadonlyArray<OriginMark | undefined>, now: Date): OriginRow[] {
  return declared
    .filter((m): m is OriginMark => m !== undefined)
    .map((m) => ({ kind: m.kind, entity: m.entity.slice(0, 40), job_id: jobId.slice(0, 64), created_at: now }));
}

/** Marks, in the write's transaction, the records a job changed (a keyed job's go with its key). */
export async function markOrigins(trx: PosDb, rows: readonly OriginRow[]): Promise<void> {
  if (rows.length > 0) await trx.insertInto('ba_event_origins').values(rows).execute();
}

export interface Origin extends OriginMark {
  id: number;
  jobId: string;
  createdAt: Date;
}

/** Every mark not yet matched to a change, oldest first. */
export async function readOrigins(db: PosDb): Promise<Origin[]> {
  const rows = await db.selectFrom('ba_event_origins').select(['id', 'kind', 'entity', 'job_id', 'created_at']).orderBy('id').execute();
  return rows.map((r) => ({ id: Number(r.id), kind: r.kind as OriginKind, entity: r.entity, jobId: r.job_id, createdAt: r.created_at }));
}

export async function forgetOrigins(trx: PosDb, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 500)
    await trx
      .deleteFrom('ba_event_origins')
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
}
