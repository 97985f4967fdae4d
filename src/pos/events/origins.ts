/**
 * Which records a write job changed, marked in the job's own transaction (`ba_event_origins`):
 * the poll that finds those changes reports them as made through the API, by that job. A
 * terminal's change to the same record within the same poll is reported with it, as one event.
 */
import type { PosDb } from '../schema.js';

/** `cierre`: a shift close, whose changes (the shift, the accounts it moves) a poll may see in two halves. */
export type OriginKind = 'orden' | 'turno' | 'cierre' | 'producto';

export interface OriginMark {
  kind: OriginKind;
  entity: string;
}

type Loose = Record<string, unknown> | null | undefined;

const value = (record: Loose, key: string): string | undefined => {
  const v = record?.[key];
  return typeof v === 'number' || typeof v === 'string' ? String(v) : undefined;
};

/** What each write operation changes, from its input and its result. */
const MARKS: Record<string, (input: Loose, result: Loose) => Array<OriginMark | undefined>> = {
  'orders.create': (_, r) => [orden(value(r, 'folio'))],
  'orders.createClosed': (_, r) => [orden(value(r, 'folio'))],
  'orders.addLines': (i) => [orden(value(i, 'folio'))],
  'orders.cancelLines': (i) => [orden(value(i, 'folio'))],
  'orders.discount': (i) => [orden(value(i, 'folio'))],
  'orders.lineDiscount': (i) => [orden(value(i, 'folio'))],
  'orders.print': (i) => [orden(value(i, 'folio'))],
  'orders.pay': (i) => [orden(value(i, 'folio'))],
  'orders.reopen': (i) => [orden(value(i, 'folio'))],
  'orders.cancel': (i) => [orden(value(i, 'folio'))],
  'shifts.open': (_, r) => [turno(value(r, 'idTurno'))],
  // The accounts a close moves to history are its changes too.
  'shifts.close': (i) => [value(i, 'idTurno') === undefined ? undefined : { kind: 'cierre', entity: value(i, 'idTurno')! }],
  'products.update': (i) => [value(i, 'idProducto') === undefined ? undefined : { kind: 'producto', entity: value(i, 'idProducto')! }],
};

function orden(folio: string | undefined): OriginMark | undefined {
  return folio === undefined ? undefined : { kind: 'orden', entity: folio };
}

function turno(idTurno: string | undefined): OriginMark | undefined {
  return idTurno === undefined ? undefined : { kind: 'turno', entity: idTurno };
}

export function originMarks(op: string, input: unknown, result: unknown): OriginMark[] {
  const marks = MARKS[op]?.(input as Loose, result as Loose) ?? [];
  return marks.filter((m): m is OriginMark => m !== undefined);
}

/** Marks, in the write's transaction, the records a job changed. */
export async function markOrigins(trx: PosDb, jobId: string, op: string, input: unknown, result: unknown, now: Date): Promise<void> {
  const marks = originMarks(op, input, result);
  if (marks.length === 0) return;
  await trx
    .insertInto('ba_event_origins')
    .values(marks.map((m) => ({ kind: m.kind, entity: m.entity.slice(0, 40), job_id: jobId.slice(0, 64), created_at: now })))
    .execute();
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
