/** `npm start` as a new user sees it: three branches whose agents are connected, on the demo keys. */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_BRANCHES, DEMO_KEYS, startDemo, type Demo } from '../../src/demo/demo.js';
import { VERSION } from '../../src/version.js';
import { until } from '../support/until.js';
import { orderBody } from '../support/order-body.js';

let demo: Demo;

beforeAll(async () => {
  demo = await startDemo({ host: '127.0.0.1', port: 0, log: pino({ level: 'silent' }) });
}, 120_000);

afterAll(async () => {
  await demo?.stop();
});

it("lists the demo's three branches online with their versions across its keys", async () => {
  const list = async () => {
    const listed = [];
    for (const { key } of DEMO_KEYS) {
      const res = await fetch(`${demo.stack.url}/sucursales`, { headers: { 'x-api-key': key } });
      expect(res.status).toBe(200);
      listed.push(...((await res.json()) as { data: Array<Record<string, unknown>> }).data);
    }
    return listed;
  };
  // The gateway records an agent's hello in the store after it answers the agent: the demo's
  // start waits for the connections, not for those writes.
  await until(async () => (await list()).every((b) => b.online === true && b.posDatabase === 'ok'), 10_000, 100).catch(() => undefined);
  const listed = await list();
  expect(listed.map((b) => b.licenseKey).sort()).toEqual(DEMO_BRANCHES.map((b) => b.licenseKey).sort());
  for (const branch of listed) {
    expect(branch).toMatchObject({ online: true, agentVersion: VERSION, nodeVersion: process.version, posDatabase: 'ok' });
    expect(branch.posVersion).toEqual(expect.any(String));
  }
});

it("shows in the feed a change made through the API and one made in the demo's POS database", async () => {
  const branch = 'DEMO000000000001';
  const headers = { 'x-api-key': 'demo-key' };
  const feed = async () =>
    (
      (await (await fetch(`${demo.stack.url}/eventos/${branch}?limit=500`, { headers })).json()) as {
        data: Array<{ type: string; origin: string; data: Record<string, unknown> }>;
      }
    ).data;
  const client = new pg.Client({ connectionString: demo.cluster.url(`pos_${branch.toLowerCase()}`) });
  await client.connect();
  try {
    // The agent's first poll only takes its baseline; changes before it are not events.
    await until(async () => (await client.query('select 1 from ba_event_state limit 1')).rowCount === 1, 20_000);
    const opened = await fetch(`${demo.stack.url}/temp_ordenes/${branch}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify(orderBody({ mesa: '9', noPersonas: 2, idMesero: '01' })),
    });
    expect(opened.status, await opened.clone().text()).toBe(201);
    await client.query("update productosdetalle set precio = precio + 1 where idproducto = '3001'");
    // Every 250 ms: the demo's keys are held to 20 requests a second.
    await until(
      async () => {
        const events = await feed();
        return (
          events.some((e) => e.type === 'orden.abierta' && e.origin === 'api') && events.some((e) => e.type === 'producto.actualizado' && e.origin === 'pos')
        );
      },
      20_000,
      250,
    );
    const events = await feed();
    expect(events.find((e) => e.type === 'orden.abierta')).toMatchObject({ origin: 'api' });
    expect(events.find((e) => e.type === 'producto.actualizado')).toMatchObject({ origin: 'pos', data: { idProducto: '3001' } });
  } finally {
    await client.end();
  }
}, 60_000);
