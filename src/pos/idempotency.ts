/**
 * The agent's half of exactly-once writes: a `ba_idempotency` row inserted, with the write's
 * result, in the same transaction as the write, as its last statement. A job delivered twice (or
 * retried after a lost answer) runs, finds the committed row when it records, rolls back and
 * answers the stored result instead. Two copies running at once serialise on the row's key: the
 * second insert waits for the first transaction and then inserts nothing (`insertKeyIfAbsent`).
 * A copy that fails instead (the first copy's write already changed what it needed) answers the
 * stored result too: the row became visible with the first copy's write, in the same commit.
 *
 * A write that prints cannot be rolled back: its row is inserted first, before it prints, and
 * its result filled in at the end (`recordResult`).
 */
import { PosError } from '../protocol/errors.js';
import type { PosDb } from './schema.js';
import { insertKeyIfAbsent, type OriginRow } from './sql-dialect.js';

export interface IdempotencyClaim {
  scope: string;
  key: string;
  fingerprint: string;
}

/**
 * Records the write's result under its key, with its origin marks; false when the key was
 * already recorded (a replay).
 */
export async function recordOnce(
  trx: PosDb,
  c: IdempotencyClaim,
  op: string,
  result: unknown,
  now: Date,
  retentionMs: number,
  origins: readonly OriginRow[],
): Promise<boolean> {
  return insertKeyIfAbsent(
    trx,
    {
      scope: c.scope,
      idem_key: c.key,
      fingerprint: c.fingerprint,
      op,
      result: JSON.stringify(result ?? null),
      created_at: now,
      expires_at: new Date(now.getTime() + retentionMs),
    },
    origins,
  );
}

/** The result recorded under a key, if any; a key recorded for another request is refused. */
export async function recordedResult(db: PosDb, c: IdempotencyClaim): Promise<{ result: unknown } | undefined> {
  const existing = await db
    .selectFrom('ba_idempotency')
    .select(['fingerprint', 'result'])
    .where('scope', '=', c.scope)
    .where('idem_key', '=', c.key)
    .executeTakeFirst();
  if (!existing) return undefined;
  if (existing.fingerprint !== c.fingerprint) {
    throw new PosError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
  }
  return { result: JSON.parse(existing.result) };
}

/** Replaces a recorded result with what the write's outside effect completed. */
export async function recordResult(trx: PosDb, c: IdempotencyClaim, result: unknown): Promise<void> {
  await trx
    .updateTable('ba_idempotency')
    .set({ result: JSON.stringify(result ?? null) })
    .where('scope', '=', c.scope)
    .where('idem_key', '=', c.key)
    .execute();
}

export async function purgeExpired(db: PosDb, now: Date): Promise<number> {
  const r = await db.deleteFrom('ba_idempotency').where('expires_at', '<', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
