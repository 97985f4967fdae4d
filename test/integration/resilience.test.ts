/**
 * Surviving the real world: the agent's connection dropped 100 times in the middle of writes,
 * and the POS database going away under load (a restart on PostgreSQL, offline and online again
 * on SQL Server). After each, the next request succeeds; no write
 * is applied twice or lost, no request hangs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, waitForAgents, type Stack } from '../../src/demo/stack.js';
import { newGatewayDatabase, newInterruptiblePosDatabase, openPosDb, type InterruptiblePosDatabase } from '../support/databases.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { until } from '../support/until.js';
import { skipOnBabelfish } from '../support/babelfish.js';
import { orderBody } from '../support/order-body.js';

describe('connection drops', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ links: true, agent: { connection: { backoffBaseMs: 5, backoffMaxMs: 40 } } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('100 drops in the middle of writes: every write lands exactly once and the next request succeeds', async () => {
    const write = (path: string, body: unknown, key: string): Promise<ApiResponse> => stack.api('POST', path, { body, headers: { 'idempotency-key': key } });
    const created = await write(`/temp_ordenes/${BRANCH}`, orderBody(), randomUUID());
    const folio = created.body.folio as number;
    const agent = stack.agents.get(BRANCH)!;
    const link = stack.links.get(BRANCH)!;
    const outcomes = { first: new Map<number, number>(), retries: 0 };

    for (let i = 0; i < 100; i++) {
      const key = randomUUID();
      const body = { productos: [{ movimiento: 1, idProducto: '1005', cantidad: 1 }] };
      const pending = write(`/temp_ordenes/${BRANCH}/${folio}/productos`, body, key);
      // Cut the link at a different moment each time: before, during or after the job.
      setTimeout(() => link.sever(), i % 7);
      let res = await pending;
      outcomes.first.set(res.status, (outcomes.first.get(res.status) ?? 0) + 1);
      while (res.status !== 200) {
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        outcomes.retries++;
        await sleep(10);
        res = await write(`/temp_ordenes/${BRANCH}/${folio}/productos`, body, key);
      }
      expect(res.body.itemsAgregados).toBe(1);
    }
    await until(() => agent.connection.connected);
    const lines = await stack.pos.get(BRANCH)!.db.selectFrom('tempcheqdet').select('movimiento').where('foliodet', '=', folio).orderBy('movimiento').execute();
    expect(lines.map((l) => Number(l.movimiento))).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // The drops really hit requests: some first attempts failed and were retried.
    expect(outcomes.retries).toBeGreaterThan(0);
    const after = await stack.api('GET', `/estaciones/${BRANCH}`);
    expect(after.status).toBe(200);
  }, 120_000);
});

describe('database restart under load', () => {
  let pos: InterruptiblePosDatabase;
  let stack: Stack;
  const logLines: string[] = [];

  beforeAll(async () => {
    pos = await newInterruptiblePosDatabase();
    const sink = new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    stack = await startStack({
      // The gateway's store lives elsewhere (the shared test cluster): only the POS database restarts.
      gatewayStoreUrl: await newGatewayDatabase(),
      branches: [{ licenseKey: BRANCH, name: 'Restart', owner: 'u', database: pos.config }],
      apiKeys: [{ key: 'k', owner: 'u' }],
      log: pino({ level: 'warn' }, sink),
      gateway: { rateLimit: { perSecond: 100_000, burst: 100_000 } },
      agent: { connection: { backoffBaseMs: 20, backoffMaxMs: 200 } },
    });
    await waitForAgents(stack, [BRANCH]);
  });
  afterAll(async () => {
    await stack?.stop().catch(() => undefined);
    await pos?.close();
  });

  it('answers 503 pos_unavailable while it is down and recovers by itself when it is back', async ({ skip }) => {
    skipOnBabelfish(skip, 'alterDatabase');
    const get = async () => {
      const res = await fetch(`${stack.url}/productos/${BRANCH}?pageSize=5`, { headers: { 'x-api-key': 'k' }, signal: AbortSignal.timeout(15_000) });
      return { status: res.status, body: (await res.json()) as { code?: string } };
    };
    expect((await get()).status).toBe(200);

    let running = true;
    const seen: Array<{ status: number; code?: string }> = [];
    const load = (async () => {
      while (running) {
        const r = await get();
        seen.push({ status: r.status, ...(r.body.code ? { code: r.body.code } : {}) });
      }
    })();
    await sleep(200);
    await pos.down();
    await sleep(500);
    const down = await get();
    expect(down).toMatchObject({ status: 503, body: { code: 'pos_unavailable' } });
    await pos.up();
    await sleep(200);
    let recovered = false;
    for (let i = 0; i < 100 && !recovered; i++) {
      recovered = (await get()).status === 200;
      if (!recovered) await sleep(100);
    }
    running = false;
    await load;
    expect(recovered).toBe(true);
    expect(seen.some((s) => s.status === 200)).toBe(true);
    expect(seen.filter((s) => s.status !== 200)).toEqual(seen.filter((s) => s.status === 503 && s.code === 'pos_unavailable'));
    expect(seen.some((s) => s.status === 503)).toBe(true);

    // The agent's own connection and pool came back too: writes work.
    const write = await fetch(`${stack.url}/temp_ordenes/${BRANCH}`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
      body: JSON.stringify(orderBody()),
    });
    expect(write.status).toBe(201);
    const direct = await openPosDb(pos.config);
    const folio = ((await write.json()) as { folio: number }).folio;
    expect(await direct.db.selectFrom('tempcheques').select('folio').where('folio', '=', folio).execute()).toHaveLength(1);
    await direct.close();
  }, 120_000);
});
