/**
 * The agent's half of exactly-once writes: a `ba_idempotency` row inserted in the same
 * transaction as the write. A job delivered twice (or retried after a lost answer) finds the
 * committed row and gets the stored result back instead of writing again. Two copies running at
 * once serialise on the row's key: the second insert waits for the first transaction and then
 * inserts nothing, and the second copy replays the first's result (`insertKeyIfAbsent`).
 */
import { PosError } from '../protocol/errors.js';
import type { PosDb } from './schema.js';
import { insertKeyIfAbsent } from './sql-dialect.js';

export interface IdempotencyClaim {
  scope: string;
  key: string;
  fingerprint: string;
}

export type ClaimOutcome = { state: 'new' } | { state: 'replay'; result: unknown };

export async function claim(trx: PosDb, c: IdempotencyClaim, op: string, now: Date, retentionMs: number): Promise<ClaimOutcome> {
  const row = {
    scope: c.scope,
    idem_key: c.key,
    fingerprint: c.fingerprint,
    op,
    result: '',
    created_at: now,
    expires_at: new Date(now.getTime() + retentionMs),
  };
  // A new key, the common case, is one statement; a key seen before is read back.
  for (;;) {
    if (await insertKeyIfAbsent(trx, row)) return { state: 'new' };
    const existing = await trx
      .selectFrom('ba_idempotency')
      .select(['fingerprint', 'result'])
      .where('scope', '=', c.scope)
      .where('idem_key', '=', c.key)
      .executeTakeFirst();
    // Purged as expired between the two statements: the key is free again.
    if (!existing) continue;
    if (existing.fingerprint !== c.fingerprint) {
      throw new PosError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request.');
    }
    return { state: 'replay', result: JSON.parse(existing.result) };
  }
}

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
