/**
 * A write that ran on the agent is answered with its real outcome even when the gateway cannot
 * record it, and its Idempotency-Key is not left stuck: the retry is answered from the agent's
 * own record, without writing twice.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

it('answers the outcome of a write it could not record, and the retry with the same key lands it once', async () => {
  const db = stack.pos.get(BRANCH)!.db;
  const mesa = `R${randomUUID().slice(0, 8)}`;
  const body = orderBody({ serie: 'A', idMesero: '01', mesa });
  const key = randomUUID();
  // The gateway's store refuses to finish any idempotency record, as a broken store would.
  await sql`alter table gw_idempotency add constraint test_never_done check (state <> 'done') not valid`.execute(stack.store.db);
  let first;
  try {
    first = await stack.api('POST', `/temp_ordenes/${BRANCH}`, { body, headers: { 'idempotency-key': key } });
  } finally {
    await sql`alter table gw_idempotency drop constraint test_never_done`.execute(stack.store.db);
  }
  expect(first.status, first.text).toBe(201);
  expect(first.body.folio).toEqual(expect.any(Number));

  const retry = await stack.api('POST', `/temp_ordenes/${BRANCH}`, { body, headers: { 'idempotency-key': key } });
  expect(retry.status, retry.text).toBe(201);
  expect(retry.body.folio).toBe(first.body.folio);
  const rows = await db.selectFrom('tempcheques').select('folio').where('mesa', '=', mesa).execute();
  expect(rows).toHaveLength(1);
});
