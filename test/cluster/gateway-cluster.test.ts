/**
 * Two gateway instances (child processes) on one store and one NATS server, three agents: every
 * request works through either instance, a key's rate limit and access changes hold across
 * them, an instance killed with SIGKILL loses its agents to the other, and a rolling restart of
 * both loses no write a client retried; writes retried with their Idempotency-Key land once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startAgent, type Agent } from '../../src/agent/agent.js';
import { AGENT_PATH, CLOSE } from '../../src/protocol/messages.js';
import { newSecret } from '../../src/gateway/secrets.js';
import { GatewayStore } from '../../src/gateway/store.js';
import type { PosConnection } from '../../src/pos/db.js';
import { inTerminalTransaction, newGatewayDatabase, newPosDatabase, openPosDb } from '../support/databases.js';
import { natsServerMissing, newWebhookKey, startInstance, startNatsServer, type GatewayInstance, type NatsServer } from '../support/gateway-cluster.js';
import { until } from '../support/until.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { orderBody } from '../support/order-body.js';

const missing = natsServerMissing();
if (missing) console.log(`Gateway cluster suite skipped: ${missing}.`);

const BRANCHES = ['TEST000000000001', 'TEST000000000002', 'TEST000000000003'];
const WRITER_KEY = 'cluster-writer-key';
const LIMITED_KEY = 'cluster-limited-key';
/** Per key and 10 s window; the writers stay well below it. */
const BURST = 200;

describe.skipIf(missing)(`gateway cluster${missing ? ' (skipped: see the line above)' : ''}`, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'branch-agent-cluster-'));
  const webhookKey = newWebhookKey();
  const agents = new Map<string, Agent>();
  const pos = new Map<string, PosConnection>();
  let nats: NatsServer;
  let store: GatewayStore;
  let databaseUrl: string;
  const instances: GatewayInstance[] = [];
  const ports: number[] = [];
  const tokens: string[] = [];

  const startNamed = async (index: number): Promise<GatewayInstance> => {
    const instance = await startInstance({
      databaseUrl,
      natsUrl: nats.url,
      dir,
      name: `gw${index}`,
      webhookKey,
      ...(ports[index] ? { port: ports[index] } : {}),
      // Short jobs: a claim left by a killed instance goes stale after twice this.
      gateway: {
        jobTimeoutMs: 3_000,
        rateLimit: { perSecond: BURST / 10, burst: BURST },
        webhooks: { allowHttp: true, allowLoopback: true },
      },
    });
    ports[index] = Number(new URL(instance.url).port);
    instances[index] = instance;
    return instance;
  };

  beforeAll(async () => {
    // A NATS server that only its gateways may use: the token travels in NATS_URL as operators write it.
    [nats, databaseUrl] = await Promise.all([startNatsServer({ token: randomBytes(16).toString('hex') }), newGatewayDatabase()]);
    store = new GatewayStore(databaseUrl);
    const user = await store.ensureUser('tester');
    await store.addApiKey(user, WRITER_KEY, 'writer', ['read', 'write', 'fleet']);
    await store.addApiKey(user, LIMITED_KEY, 'limited', ['read']);
    tokens.push(...BRANCHES.map(() => newSecret('agt')));
    for (const [i, licenseKey] of BRANCHES.entries()) await store.upsertBranch(user, licenseKey, tokens[i]!, licenseKey);
    const [a, b] = await Promise.all([startNamed(0), startNamed(1)]);
    const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
    await Promise.all(
      BRANCHES.map(async (licenseKey, i) => {
        const database = await newPosDatabase('branch');
        pos.set(licenseKey, await openPosDb(database));
        // Two agents start on the first instance, the third on the second.
        const [first, second] = i < 2 ? [a.url, b.url] : [b.url, a.url];
        const agent = await startAgent(
          {
            licenseKey,
            workerId: `agent-${i}`,
            gatewayUrl: first,
            gatewayUrls: [second],
            token: tokens[i]!,
            database,
            connection: { backoffBaseMs: 50, backoffMaxMs: 400 },
          },
          log.child({ licenseKey }),
        );
        agents.set(licenseKey, agent);
      }),
    );
    await until(async () => (await connectedTo(a)) === 2 && (await connectedTo(b)) === 1, 15_000);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...agents.values()].map((a) => a.stop(0)));
    await Promise.all(instances.map((i) => i.stop('SIGKILL')));
    await Promise.all([...pos.values()].map((p) => p.close()));
    await store?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const connectedTo = async (instance: GatewayInstance): Promise<number> => {
    const ready = await fetch(`${instance.url}/readyz`).catch(() => undefined);
    return ready?.ok ? ((await ready.json()) as { agentsConnected: number }).agentsConnected : -1;
  };

  const call = (instance: GatewayInstance, method: string, url: string, opts: { key?: string; idempotencyKey?: string; body?: unknown } = {}) =>
    fetch(`${instance.url}${url}`, {
      method,
      headers: {
        'x-api-key': opts.key ?? WRITER_KEY,
        ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}),
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });

  const order = orderBody({
    serie: 'A',
    mesa: '',
    idMesero: '01',
    productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }],
  });

  /**
   * What a careful client does: the same Idempotency-Key until the write is answered, through
   * whichever instance is up, waiting a little after a refusal (503, a 409 still running, a
   * connection that failed).
   */
  async function createOrder(licenseKey: string, idempotencyKey: string): Promise<{ folio: number }> {
    const deadline = Date.now() + 30_000;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const instance = instances[attempt % instances.length]!;
      const res = await call(instance, 'POST', `/temp_ordenes/${licenseKey}`, { idempotencyKey, body: order }).catch(() => undefined);
      if (res?.status === 201) return (await res.json()) as { folio: number };
      if (res && res.status !== 503 && res.status !== 409 && res.status !== 504) throw new Error(`unexpected ${res.status}: ${await res.text()}`);
      await sleep(100);
    }
    throw new Error(`order ${idempotencyKey} not created within 30 s`);
  }

  const orderCount = async (licenseKey: string) =>
    Number(
      (
        await pos
          .get(licenseKey)!
          .db.selectFrom('tempcheques')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  /**
   * Writes orders to every branch, one after the other per branch, from before `disturb` starts
   * until a few after it ends; every one lands exactly once.
   */
  async function writeThrough(label: string, disturb: () => Promise<void>): Promise<void> {
    const before = new Map(await Promise.all(BRANCHES.map(async (b) => [b, await orderCount(b)] as const)));
    const folios = new Map<string, number[]>(BRANCHES.map((b) => [b, []]));
    let disturbed = false;
    const writers = BRANCHES.map(async (licenseKey) => {
      const mine = folios.get(licenseKey)!;
      for (let after = 0; after < 3; after += disturbed ? 1 : 0) {
        mine.push((await createOrder(licenseKey, `${label}-${licenseKey}-${mine.length}`)).folio);
        await sleep(30);
      }
    });
    await until(() => [...folios.values()].every((f) => f.length >= 2), 10_000);
    await disturb();
    disturbed = true;
    await Promise.all(writers);
    for (const licenseKey of BRANCHES) {
      const written = folios.get(licenseKey)!;
      expect(new Set(written).size).toBe(written.length);
      expect(await orderCount(licenseKey)).toBe(before.get(licenseKey)! + written.length);
    }
  }

  it('answers any branch through either instance, and replays a write on the other', async () => {
    for (const instance of instances) {
      for (const licenseKey of BRANCHES) {
        const res = await call(instance, 'GET', `/productos/${licenseKey}?pageSize=1`);
        expect(res.status, await res.clone().text()).toBe(200);
      }
    }
    // The third agent is on the second instance: the write goes through the first one.
    const before = await orderCount(BRANCHES[2]!);
    const created = await call(instances[0]!, 'POST', `/temp_ordenes/${BRANCHES[2]}`, { idempotencyKey: 'replay-1', body: order });
    expect(created.status).toBe(201);
    const replayed = await call(instances[1]!, 'POST', `/temp_ordenes/${BRANCHES[2]}`, { idempotencyKey: 'replay-1', body: order });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.json()).toEqual(await created.json());
    expect(await orderCount(BRANCHES[2]!)).toBe(before + 1);
  });

  it("holds a key's rate limit whichever instance each request reaches", async () => {
    // Windows are aligned on the clock: start at the beginning of one so all requests share it.
    const windowMs = 10_000;
    const left = windowMs - (Date.now() % windowMs);
    if (left < 8_000) await sleep(left + 20);
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, async (_, worker) => {
        for (let i = 0; i < 30; i++) {
          // Another user's branch: refused after the rate limit counted it, without a job.
          const res = await call(instances[(worker + i) % 2]!, 'GET', '/productos/NOTMINE000000001?pageSize=1', { key: LIMITED_KEY });
          statuses.push(res.status);
        }
      }),
    );
    const allowed = statuses.filter((s) => s !== 429).length;
    expect(statuses.length).toBe(300);
    expect(Math.abs(allowed - BURST)).toBeLessThanOrEqual(BURST / 10);
  }, 60_000);

  it('shows a printer registered through one instance on the other', async () => {
    const printer = { licenseKey: BRANCHES[0], printerIp: '192.168.1.50', displayName: 'Cocina', kind: 'thermal', widthMm: 80 };
    const created = await call(instances[0]!, 'POST', '/print/printers', { idempotencyKey: 'printer-1', body: printer });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const read = await call(instances[1]!, 'GET', `/print/printers/${id}`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { displayName: string }).displayName).toBe('Cocina');
  });

  it('forgets a revoked key on every instance at once', async () => {
    const user = await store.ensureUser('tester');
    const id = await store.addApiKey(user, 'short-lived-key', 'short', ['read']);
    for (const instance of instances)
      expect((await call(instance, 'GET', `/productos/${BRANCHES[0]}?pageSize=1`, { key: 'short-lived-key' })).status).toBe(200);
    await store.revokeApiKey(id);
    for (const instance of instances)
      await until(async () => (await call(instance, 'GET', `/productos/${BRANCHES[0]}?pageSize=1`, { key: 'short-lived-key' })).status === 401, 2_000);
  });

  it('moves the agents of an instance killed with SIGKILL to the other, and writes land once', async () => {
    const [a, b] = instances as [GatewayInstance, GatewayInstance];
    let movedInMs = 0;
    await writeThrough('kill', async () => {
      const killedAt = Date.now();
      await a.stop('SIGKILL');
      await until(async () => (await connectedTo(b)) === 3, 10_000, 20);
      movedInMs = Date.now() - killedAt;
    });
    // Backoff of at most 400 ms, plus the connection to the surviving instance (slack for a loaded CI).
    expect(movedInMs).toBeLessThan(5_000);
    await startNamed(0);
  }, 60_000);

  it('loses no retried write in a rolling restart of both instances', async () => {
    await writeThrough('rolling', async () => {
      for (const index of [0, 1]) {
        await instances[index]!.stop('SIGTERM');
        expect(instances[index]!.process.exitCode, instances[index]!.output()).toBe(0);
        await startNamed(index);
      }
    });
    await until(async () => (await connectedTo(instances[0]!)) + (await connectedTo(instances[1]!)) === 3, 10_000);
  }, 90_000);

  it('answers the write in flight on an instance that stops, then sends its agents elsewhere', async () => {
    const licenseKey = BRANCHES[2]!;
    const agent = agents.get(licenseKey)!;
    const index = instances.findIndex((i) => i.url === agent.connection.gatewayUrl);
    const holder = instances[index]!;
    const { folio } = await createOrder(licenseKey, 'in-flight-order');
    // A terminal holds the account, so the next write is still running when the instance stops.
    const terminal = pos.get(licenseKey)!;
    let inFlight: Promise<Response> | undefined;
    let stopped: Promise<void> | undefined;
    let refused: Response | undefined;
    await inTerminalTransaction(terminal.db, async (trx) => {
      await trx.updateTable('tempcheques').set({ observaciones: 'en caja' }).where('folio', '=', folio).execute();
      inFlight = call(holder, 'POST', `/temp_ordenes/${licenseKey}/${folio}/productos`, {
        idempotencyKey: 'in-flight-line',
        body: { productos: [{ movimiento: 1, idProducto: '1005', cantidad: 1 }] },
      });
      await sleep(300);
      stopped = holder.stop('SIGTERM');
      // Meanwhile it takes no new request, and says so in a problem the client can act on; the
      // write must be let go within its budget (under 3 s), whatever this finds.
      await until(async () => {
        refused = await call(holder, 'GET', `/productos/${licenseKey}?pageSize=1`);
        return refused.status === 503;
      }, 1_500).catch(() => undefined);
    });
    expect(refused!.status).toBe(503);
    expect(refused!.headers.get('retry-after')).toBe('1');
    expect(((await refused!.json()) as { code: string }).code).toBe('gateway_stopping');
    expect((await inFlight!).status).toBe(200);
    const lines = await terminal.db.selectFrom('tempcheqdet').select('idproducto').where('foliodet', '=', folio).execute();
    expect(lines.map((l) => l.idproducto).sort()).toEqual(['1005', '3001']);
    await stopped;
    expect(holder.process.exitCode, holder.output()).toBe(0);
    await until(() => agent.connection.connected && agent.connection.gatewayUrl !== holder.url, 5_000);
    await startNamed(index);
  }, 60_000);

  it('sends each webhook delivery from one instance only', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const hook = await call(instances[0]!, 'POST', '/webhooks', { body: { url: receiver.url, eventos: ['orden.abierta'] } });
      expect(hook.status, await hook.clone().text()).toBe(201);
      const folios = await Promise.all(BRANCHES.flatMap((licenseKey) => [0, 1, 2].map((i) => createOrder(licenseKey, `hook-${licenseKey}-${i}`))));
      await until(() => receiver.events('orden.abierta').length >= folios.length, 20_000, 50);
      // Both instances poll for due deliveries: a lease lets only one send each.
      await sleep(1_500);
      const ids = receiver.received.map((r) => (r.json as { id: string }).id);
      expect(ids.length).toBe(new Set(ids).size);
    } finally {
      await receiver.close();
    }
  });

  it("closes an agent's connection on one instance when it connects to the other", async () => {
    const licenseKey = BRANCHES[0]!;
    const agent = agents.get(licenseKey)!;
    await until(() => agent.connection.connected, 10_000);
    const holder = instances.find((i) => i.url === agent.connection.gatewayUrl)!;
    const other = instances.find((i) => i !== holder)!;
    // A second connection for the branch, on the instance that does not hold its agent.
    const intruder = new WebSocket(new URL(AGENT_PATH, other.url.replace(/^http/, 'ws')), { headers: { authorization: `Bearer ${tokens[0]}` } });
    const closed = new Promise<number>((resolve) => intruder.on('close', (code) => resolve(code)));
    const welcomed = new Promise<void>((resolve) => intruder.once('message', () => resolve()));
    await new Promise((r) => intruder.once('open', r));
    intruder.send(JSON.stringify({ type: 'hello', licenseKey, workerId: 'intruder', agentVersion: '0', posVersion: null }));
    await welcomed;
    // The holder closed the agent's connection: the agent came back, to the other instance (its
    // next gateway), which replaced the intruder in turn.
    expect(await closed).toBe(CLOSE.replaced);
    await until(() => agent.connection.connected && agent.connection.gatewayUrl === other.url, 10_000);
    expect((await call(holder, 'GET', `/productos/${licenseKey}?pageSize=1`)).status).toBe(200);
  });

  it('answers as for an offline agent when no instance holds the branch', async () => {
    const licenseKey = BRANCHES[1]!;
    await agents.get(licenseKey)!.stop(0);
    for (const instance of instances) {
      const res = await call(instance, 'GET', `/productos/${licenseKey}?pageSize=1`);
      expect(res.status).toBe(503);
      expect(((await res.json()) as { code: string }).code).toBe('agent_offline');
    }
  });
});
