/**
 * A job's time limit travels as a budget the agent measures on its own monotonic clock, so a
 * branch server whose wall clock is minutes or an hour off the gateway's neither fails every
 * job nor commits after the client was told 504. A print held past the limit before it reached
 * its printer is not sent, and recorded so. A result the gateway cannot read is answered at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AGENT_PATH, frameJson } from '../../src/protocol/messages.js';
import { startVirtualPrinter } from '../../src/printing/virtual-printer.js';
import { LOOPBACK } from '../support/printer-ports.js';
import { BRANCH, startTestStack, STRICT_BRANCH, type TestStack } from '../support/stack.js';
import { until } from '../support/until.js';
import { trapCommits } from '../support/commit-trap.js';
import { orderBody } from '../support/order-body.js';

const MINUTE = 60_000;
/** The agents' wall clock, this many ms off the gateway's. */
let clockOffsetMs = 0;
const JOB_TIMEOUT_MS = 1_500;

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({
    gateway: { jobTimeoutMs: JOB_TIMEOUT_MS },
    agent: { wallClock: () => Date.now() + clockOffsetMs },
  });
});
afterAll(async () => {
  await stack?.stop();
});

const createOrder = (estacion = 'CAJA1') =>
  stack.api('POST', `/temp_ordenes/${BRANCH}`, { body: orderBody({ estacion }), headers: { 'idempotency-key': randomUUID() } });

describe("an agent whose clock is off the gateway's", () => {
  it.each([
    ['5 minutes ahead', 5 * MINUTE],
    ['5 minutes behind', -5 * MINUTE],
    ['an hour ahead', 60 * MINUTE],
    ['an hour behind', -60 * MINUTE],
  ])('%s runs reads and writes', async (_name, offset) => {
    clockOffsetMs = offset;
    try {
      const read = await stack.api('GET', `/empresas/${BRANCH}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      const write = await createOrder();
      expect(write.status, JSON.stringify(write.body)).toBe(201);
      // The account carries the branch's own time, as the POS writes it.
      const header = await stack.pos.get(BRANCH)!.db.selectFrom('tempcheques').select('fecha').where('folio', '=', write.body.folio).executeTakeFirstOrThrow();
      expect(Math.abs(header.fecha!.getTime() - (Date.now() + offset))).toBeLessThan(10_000);
    } finally {
      clockOffsetMs = 0;
    }
  });

  it.each([
    ['an hour behind', -60 * MINUTE],
    ['on time', 0],
  ])('%s never commits a write after the client was told 504', async (_name, offset) => {
    clockOffsetMs = offset;
    const db = stack.pos.get(BRANCH)!.db;
    const before = await db.selectFrom('tempcheques').select('folio').execute();
    // The write waits at its commit until half a second after the client was told 504.
    const trap = await trapCommits(db, 'orders.create', 'hold');
    try {
      const res = await createOrder('CAJA2');
      expect(res.status).toBe(504);
      expect(res.body.code).toBe('agent_timeout');
      expect(await trap.reached()).toBe(1);
      await sleep(500);
      await trap.release();
      await sleep(500);
      expect(await db.selectFrom('tempcheques').select('folio').execute()).toHaveLength(before.length);
    } finally {
      clockOffsetMs = 0;
      await trap.remove();
    }
  });
});

describe('a print held past its deadline before its commit', () => {
  it('is rolled back like any write: nothing recorded or printed, and a retry with the same key prints it once', async () => {
    const printer = await startVirtualPrinter({ host: LOOPBACK });
    const cleanups: Array<() => Promise<void>> = [];
    const db = stack.pos.get(BRANCH)!.db;
    const testJobs = async () => (await db.selectFrom('ba_print_jobs').select('id').where('kind', '=', 'test').execute()).length;
    try {
      const registered = await stack.api('POST', '/print/printers', {
        body: { licenseKey: BRANCH, printerIp: LOOPBACK, printerPort: printer.port, displayName: 'Cocina', kind: 'thermal', widthMm: 80 },
      });
      const printerId = registered.body.id as string;
      const key = randomUUID();
      const before = await testJobs();
      // The print's record of its key (the last thing its transaction writes) waits until the client was told 504.
      const trap = await trapCommits(db, 'print.test', 'hold');
      cleanups.push(() => trap.remove());
      const late = await stack.api('POST', `/print/${BRANCH}/prueba`, { body: { printerId }, headers: { 'idempotency-key': key } });
      expect(late.status).toBe(504);
      await trap.release();
      await until(() => stack.agents.get(BRANCH)!.runner.running === 0);
      await sleep(300);
      expect(await testJobs()).toBe(before);
      expect(printer.jobs).toHaveLength(0);

      const retry = await stack.api('POST', `/print/${BRANCH}/prueba`, { body: { printerId }, headers: { 'idempotency-key': key } });
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      expect(retry.body.results).toMatchObject([{ printerId, status: 'printed' }]);
      await printer.waitForJob();
      expect(await testJobs()).toBe(before + 1);
      expect(printer.jobs).toHaveLength(1);
    } finally {
      for (const cleanup of cleanups.splice(0)) await cleanup();
      await printer.close();
    }
  });
});

describe('a result the gateway cannot read', () => {
  it('answers 502 agent_bad_result at once instead of a 504 after the timeout', async () => {
    await stack.agents.get(STRICT_BRANCH)!.stop(100);
    const ws = new WebSocket(`${stack.url.replace('http', 'ws')}${AGENT_PATH}`, {
      headers: { authorization: `Bearer ${stack.agentTokens.get(STRICT_BRANCH)}` },
    });
    try {
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.send(JSON.stringify({ type: 'hello', licenseKey: STRICT_BRANCH, workerId: 'broken-agent', agentVersion: '0.0.0', posVersion: null }));
      ws.on('message', (raw) => {
        const message = frameJson(raw) as { type: string; jobId?: string };
        if (message.type === 'job') ws.send(JSON.stringify({ type: 'result', jobId: message.jobId, ok: 'maybe' }));
      });
      await until(() => stack.gateway.hub.agentFor(STRICT_BRANCH)?.workerId === 'broken-agent');
      const started = Date.now();
      const res = await stack.api('GET', `/empresas/${STRICT_BRANCH}`);
      expect(res.status).toBe(502);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('agent_bad_result');
      expect(Date.now() - started).toBeLessThan(JOB_TIMEOUT_MS);
    } finally {
      ws.close();
    }
  });
});
