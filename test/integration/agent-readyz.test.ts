/**
 * The agent's /readyz on a real POS database: a database check stands for a while (a monitor
 * polling every second does not ping every second), requests that come while a ping is under way
 * share it (a hung database must not take a pool connection per request), and a ping that does
 * not answer in time counts as unreachable.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from '../../src/agent/health.js';
import { ping, type PosConnection } from '../../src/pos/db.js';
import { newPosDatabase, openPosDb } from '../support/databases.js';
import { LOOPBACK } from '../support/printer-ports.js';

let pos: PosConnection;
const servers: HealthServer[] = [];

beforeAll(async () => {
  pos = await openPosDb(await newPosDatabase());
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await pos?.close();
});

/** A health server whose database pings go to the real database once `gate` lets them. */
async function healthServer(opts: { dbCheckTtlMs?: number; dbPingTimeoutMs?: number } = {}) {
  const state = { pings: 0, gate: Promise.resolve() };
  const server = await startHealthServer(
    {
      gatewayConnected: () => true,
      pingDatabase: async () => {
        state.pings++;
        await state.gate;
        await ping(pos.db);
      },
      jobsRunning: () => 0,
    },
    { host: LOOPBACK, port: 0, ...opts },
  );
  servers.push(server);
  const readyz = async () => {
    const res = await fetch(`http://${LOOPBACK}:${server.port}/readyz`);
    return { status: res.status, body: (await res.json()) as { status: string; database: string } };
  };
  return { state, readyz };
}

it('pings the database once for the checks within its time to live, and again after it', async () => {
  const { state, readyz } = await healthServer({ dbCheckTtlMs: 1_000 });
  for (let i = 0; i < 3; i++) expect(await readyz()).toMatchObject({ status: 200, body: { status: 'ready', database: 'ok' } });
  expect(state.pings).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  expect(await readyz()).toMatchObject({ status: 200, body: { database: 'ok' } });
  expect(state.pings).toBe(2);
});

it('answers requests that arrive during a ping with that one ping', async () => {
  const { state, readyz } = await healthServer();
  let release!: () => void;
  state.gate = new Promise((resolve) => (release = resolve));
  const answers = Promise.all(Array.from({ length: 10 }, () => readyz()));
  await new Promise((resolve) => setTimeout(resolve, 300));
  release();
  expect((await answers).map((a) => a.status)).toEqual(Array(10).fill(200));
  expect(state.pings).toBe(1);
});

it('counts a database that does not answer in time as unreachable, and does not pile pings on it', async () => {
  const { state, readyz } = await healthServer({ dbPingTimeoutMs: 300 });
  state.gate = new Promise(() => undefined);
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 5 }, () => readyz()));
  expect(Date.now() - started).toBeLessThan(2_000);
  for (const answer of answers) expect(answer).toMatchObject({ status: 503, body: { status: 'not_ready', database: 'unreachable' } });
  expect(await readyz()).toMatchObject({ status: 503, body: { database: 'unreachable' } });
  expect(state.pings).toBe(1);
});
