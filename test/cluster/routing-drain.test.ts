/**
 * An instance whose agent leaves stops taking the branch's jobs, but a job another instance sent
 * just before the news reached NATS is still on its way to it. Dropped, it left the sender waiting
 * out the job's timeout (a 504 in a CI run of gateway-cluster.test.ts, where 503 agent_offline was
 * due). The server's messages to the leaving instance are held back here by a relay, so the job
 * arrives after the instance stopped serving: it must be answered offline at once.
 */
import { createServer, connect as connectTcp, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JobRouting } from '../../src/gateway/cluster/job-routing.js';
import { AgentHub, AgentOfflineError } from '../../src/gateway/hub.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { newGatewayDatabase } from '../support/databases.js';
import { natsServerMissing, startNatsServer, type NatsServer } from '../support/gateway-cluster.js';

const missing = natsServerMissing();
if (missing) console.log(`Routing drain test skipped: ${missing}.`);

const BRANCH = 'DRAN000000000001';
const log = pino({ level: 'silent' });
let nats: NatsServer;
let store: GatewayStore;
let hub: AgentHub;
let relay: Server;
const sockets: Socket[] = [];
/** How long the server's bytes to the leaving instance are held. */
let holdMs = 0;
let leaving: NatsConnection;
let sender: NatsConnection;

/** A TCP relay to the NATS server that delays what the server sends by holdMs, in order. */
async function startRelay(target: URL): Promise<string> {
  relay = createServer((client) => {
    const upstream = connectTcp(Number(target.port), target.hostname);
    sockets.push(client, upstream);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => (holdMs > 0 ? setTimeout(() => client.write(d), holdMs) : client.write(d)));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return `nats://127.0.0.1:${(relay.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  if (missing) return;
  [nats, store] = await Promise.all([startNatsServer(), newGatewayDatabase().then((u) => new GatewayStore(u))]);
  hub = new AgentHub({ store, log, jobTimeoutMs: 1_000 });
  leaving = await connect({ servers: await startRelay(new URL(nats.url)) });
  sender = await connect({ servers: nats.url });
});

afterAll(async () => {
  await leaving?.close();
  await sender?.close();
  for (const s of sockets) s.destroy();
  relay?.close();
  await hub?.close();
  await store?.close();
  await nats?.stop();
});

it.skipIf(missing)('answers offline at once a job that reaches an instance after its agent left it', async () => {
  const holder = new JobRouting(leaving, hub, log);
  holder.serve(BRANCH);
  await leaving.flush();
  holdMs = 300;
  const started = performance.now();
  const answer = new JobRouting(sender, hub, log).dispatch({ licenseKey: BRANCH, op: 'products.list', params: {}, timeoutMs: 1_000 });
  // The server has taken the job and sent it towards the holder, where the relay holds it.
  await sender.flush();
  holder.stopServing(BRANCH);
  await expect(answer).rejects.toBeInstanceOf(AgentOfflineError);
  expect(performance.now() - started).toBeLessThan(1_000);
});
