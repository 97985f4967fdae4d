/**
 * Tests that play a terminal holding rows (a POS transaction left open while the agent waits)
 * report their own failures. A pool's close waits for a connection still in a transaction, so a
 * terminal's transaction must be rolled back before its connection closes, also when an
 * assertion failed while it held its locks; otherwise the test reports a timeout (120 s on SQL
 * Server) instead of the assertion. `withTerminal` and `inTerminalTransaction` do it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newPosDatabase, openPosDb, withTerminal } from '../support/databases.js';

const TEST_DIR = path.resolve(import.meta.dirname, '..');

describe('a terminal transaction in a test', () => {
  it('that fails while holding a row is reported as that failure, with the row released', async () => {
    const config = await newPosDatabase('branch');
    const pos = await openPosDb({ ...config, lockTimeoutMs: 2_000 });
    const { folio } = await pos.db.selectFrom('tempcheques').select('folio').orderBy('folio').executeTakeFirstOrThrow();
    const started = Date.now();
    const failure = await withTerminal(config, async (trx) => {
      const held = await trx.updateTable('tempcheques').set({ observaciones: 'en caja' }).where('folio', '=', folio).executeTakeFirst();
      expect(Number(held.numUpdatedRows)).toBe(1);
      throw new Error('the assertion that failed');
    }).catch((error: unknown) => error);
    expect(failure).toEqual(new Error('the assertion that failed'));
    expect(Date.now() - started).toBeLessThan(10_000);

    // Rolled back, not just abandoned: another session takes the row at once and sees no change.
    try {
      await pos.db.transaction().execute(async (trx) => {
        const row = await trx.selectFrom('tempcheques').select('observaciones').where('folio', '=', folio).forUpdate().executeTakeFirstOrThrow();
        expect(row.observaciones).not.toBe('en caja');
      });
    } finally {
      await pos.close();
    }
  });

  it('is opened only through withTerminal or inTerminalTransaction', () => {
    const files = readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && f !== path.join('support', 'databases.ts'));
    const opening = files.filter((f) => /\.startTransaction\(\)/.test(readFileSync(path.join(TEST_DIR, f), 'utf8')));
    expect(opening).toEqual([]);
  });
});
