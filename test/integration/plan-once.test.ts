/**
 * The quiet poll's statement is planned once per connection on PostgreSQL (planOnce), as SQL
 * Server keeps a plan for every statement: it is sent as a named prepared statement, and every
 * other statement still goes unnamed.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tableSumsReader } from '../../src/pos/events/observe.js';
import { openPos, type PosRuntime } from '../../src/pos/runtime.js';
import { newPosDatabase } from '../support/databases.js';

let pos: PosRuntime;

beforeAll(async () => {
  pos = await openPos(await newPosDatabase(), pino({ level: 'silent' }));
});
afterAll(async () => {
  await pos?.close();
});

it('prepares the sums statement once on a connection and reuses it', async () => {
  await pos.db.connection().execute(async (conn) => {
    const readSums = tableSumsReader(conn);
    const first = await readSums();
    const prepared = () => sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(conn).then((r) => r.rows);
    expect(await prepared()).toHaveLength(1);
    const [statement] = await prepared();
    expect(statement!.name).toMatch(/^ba_[0-9a-f]{32}$/);
    expect(statement!.statement).toContain('"tempcheqdet"');
    expect(await readSums()).toEqual(first);
    expect(await prepared()).toEqual([statement]);
  });
});
