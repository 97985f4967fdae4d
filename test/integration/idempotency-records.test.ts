/**
 * The gateway's idempotency records and job log on a real store: whatever an answer or an agent
 * holds is kept, and a record that cannot be written never leaves its key stuck.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleKey } from '../../src/gateway/idempotency.js';
import { JobLog } from '../../src/gateway/job-log.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { newGatewayDatabase } from '../support/databases.js';

let store: GatewayStore;
let userId: number;
const HOUR = 3_600_000;

beforeAll(async () => {
  store = new GatewayStore(await newGatewayDatabase());
  userId = await store.ensureUser('records');
});
afterAll(async () => {
  await store?.close();
});

/** A logger whose lines the test reads. */
function capturingLog() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

describe('idempotency outcomes', () => {
  it('keeps and replays an answer holding NUL characters and lone surrogates', async () => {
    const body = { jobId: 'j-1', detail: 'a\u0000b', name: 'x\ud800y', nested: [{ t: '\udfff' }] };
    expect((await store.claimIdempotencyKey(userId, 'odd-text', 'f'.repeat(64), HOUR, HOUR)).claimed).toBe(true);
    await store.completeIdempotencyKey(userId, 'odd-text', 201, body, 'j-1');
    const again = await store.claimIdempotencyKey(userId, 'odd-text', 'f'.repeat(64), HOUR, HOUR);
    expect(again.claimed).toBe(false);
    expect(again.claimed === false && again.record).toMatchObject({ state: 'done', status_code: 201, job_id: 'j-1' });
    expect(again.claimed === false && JSON.parse(again.record.body!)).toEqual(body);
  });

  it('an outcome that cannot be recorded releases the key and is logged', async () => {
    expect((await store.claimIdempotencyKey(userId, 'unrecordable', 'a'.repeat(64), HOUR, HOUR)).claimed).toBe(true);
    // A store that refuses to finish any record, as a broken one would.
    await sql`alter table gw_idempotency add constraint test_never_done check (state <> 'done') not valid`.execute(store.db);
    const { log, lines } = capturingLog();
    try {
      await settleKey(store, log, userId, 'unrecordable', { status: 201, body: { jobId: 'j-2', folio: 7 }, jobId: 'j-2' });
    } finally {
      await sql`alter table gw_idempotency drop constraint test_never_done`.execute(store.db);
    }
    expect(lines).toEqual([expect.objectContaining({ level: 50, jobId: 'j-2', msg: expect.stringMatching(/could not record/) })]);
    expect((await store.claimIdempotencyKey(userId, 'unrecordable', 'a'.repeat(64), HOUR, HOUR)).claimed).toBe(true);
  });
});

describe('claims', () => {
  it('of ten concurrent claims of one key, exactly one succeeds', async () => {
    // Ten connections open first, so the claims do run at once.
    await Promise.all(Array.from({ length: 10 }, () => sql`select pg_sleep(0.05)`.execute(store.db)));
    const claims = await Promise.all(Array.from({ length: 10 }, () => store.claimIdempotencyKey(userId, 'raced', 'b'.repeat(64), HOUR, HOUR)));
    expect(claims.filter((c) => c.claimed)).toHaveLength(1);
    expect(claims.filter((c) => !c.claimed).map((c) => !c.claimed && c.record.state)).toEqual(Array(9).fill('running'));
  });

  it('a claim left running past the stale limit, or an expired record, is taken over once', async () => {
    expect((await store.claimIdempotencyKey(userId, 'abandoned', 'c'.repeat(64), HOUR, HOUR)).claimed).toBe(true);
    expect((await store.claimIdempotencyKey(userId, 'expired', 'd'.repeat(64), 1, HOUR)).claimed).toBe(true);
    await store.completeIdempotencyKey(userId, 'expired', 200, { jobId: 'old' }, 'old');
    await sleep(20);
    for (const [key, print] of [
      ['abandoned', 'c'],
      ['expired', 'd'],
    ] as const) {
      const claims = await Promise.all(Array.from({ length: 5 }, () => store.claimIdempotencyKey(userId, key, print.repeat(64), HOUR, 10)));
      expect(
        claims.filter((c) => c.claimed),
        key,
      ).toHaveLength(1);
    }
  });
});

describe('job log', () => {
  const entry = { license_key: 'TEST000000000001', op: 'products.list', outcome: 'error', started_at: new Date(), duration_ms: 3 };

  it('keeps an entry whatever text the agent sent in it', async () => {
    const jobLog = new JobLog(store, pino({ level: 'silent' }));
    jobLog.add({ ...entry, job_id: 'odd-agent', worker_id: 'w\u0000rker', error_code: 'bad\ud800' });
    jobLog.add({ ...entry, job_id: 'plain-agent', worker_id: 'worker', error_code: null });
    await jobLog.flush();
    const rows = await store.db
      .selectFrom('gw_job_log')
      .select(['job_id', 'worker_id', 'error_code'])
      .where('job_id', 'in', ['odd-agent', 'plain-agent'])
      .orderBy('job_id')
      .execute();
    expect(rows).toEqual([
      { job_id: 'odd-agent', worker_id: 'w\ufffdrker', error_code: 'bad\ufffd' },
      { job_id: 'plain-agent', worker_id: 'worker', error_code: null },
    ]);
  });

  it('logs the entries it could not write', async () => {
    const { log, lines } = capturingLog();
    const jobLog = new JobLog(store, log);
    jobLog.add({ ...entry, job_id: 'refused-1', worker_id: 'w', error_code: null, op: 'refused' });
    jobLog.add({ ...entry, job_id: 'refused-2', worker_id: 'w', error_code: null, op: 'refused' });
    // A store that refuses the batch, as one that is down or full would.
    await sql`alter table gw_job_log add constraint test_refused check (op <> 'refused') not valid`.execute(store.db);
    try {
      await jobLog.flush();
    } finally {
      await sql`alter table gw_job_log drop constraint test_refused`.execute(store.db);
    }
    expect(lines).toEqual([expect.objectContaining({ level: 50, lost: 2, jobIds: ['refused-1', 'refused-2'], msg: expect.stringMatching(/job log/) })]);
  });
});
