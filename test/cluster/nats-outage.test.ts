/**
 * While an instance's NATS link is down, a job for an agent another instance holds cannot be
 * routed: it is answered 503 agent_offline at once, rather than after the job's timeout and the
 * routing margin (a 504 after 32 s by default, the probe's finding). Two real gateways on one
 * real nats-server, which the test stops.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { AgentOfflineError } from '../../src/gateway/hub.js';
import { newSecret } from '../../src/gateway/secrets.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { AGENT_PATH } from '../../src/protocol/messages.js';
import { newGatewayDatabase } from '../support/databases.js';
import { natsServerMissing, startNatsServer, type NatsServer } from '../support/gateway-cluster.js';
import { until } from '../support/until.js';

const missing = natsServerMissing();
if (missing) console.log(`NATS outage suite skipped: ${missing}.`);

const BRANCH = 'NATS000000000001';
const JOB_TIMEOUT_MS = 10_000;

describe.skipIf(missing)(`a gateway whose NATS link is down${missing ? ' (skipped: see the line above)' : ''}`, () => {
  let nats: NatsServer;
  let store: GatewayStore;
  let holder: Gateway;
  let sender: Gateway;
  let ws: WebSocket | undefined;
  const senderLog: string[] = [];
  /** The message types the agent received. */
  const received: string[] = [];

  const start = async (log: pino.Logger) => {
    const gateway = await buildGateway({ store, log, webhookKey: randomBytes(32), jobTimeoutMs: JOB_TIMEOUT_MS, cluster: { natsUrl: nats.url } });
    const url = (await gateway.app.listen({ host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
    return { gateway, url };
  };

  beforeAll(async () => {
    [nats, store] = await Promise.all([startNatsServer(), newGatewayDatabase().then((u) => new GatewayStore(u))]);
    const token = newSecret('agt');
    await store.upsertBranch(await store.ensureUser('tester'), BRANCH, token, BRANCH);
    const sink = new Writable({
      write(chunk, _encoding, done) {
        senderLog.push(String(chunk));
        done();
      },
    });
    const [held, sending] = await Promise.all([start(pino({ level: 'silent' })), start(pino({ level: 'warn' }, sink))]);
    holder = held.gateway;
    sender = sending.gateway;
    ws = new WebSocket(new URL(AGENT_PATH, held.url.replace(/^http/, 'ws')), { headers: { authorization: `Bearer ${token}` } });
    await new Promise((resolve) => ws!.once('open', resolve));
    ws.on('message', (data: Buffer) => received.push(String((JSON.parse(data.toString()) as { type?: unknown }).type)));
    ws.send(JSON.stringify({ type: 'hello', licenseKey: BRANCH, workerId: 'w', agentVersion: '0', posVersion: null }));
    await until(() => holder.hub.agentFor(BRANCH) !== undefined);
  });

  afterAll(async () => {
    ws?.terminate();
    await holder?.app.close();
    await sender?.app.close();
    await store?.close();
    await nats?.stop();
  });

  it('answers a job for an agent on another instance offline at once, not at its timeout', async () => {
    await nats.stop();
    // The sender has heard its link is down (it logs each change of it).
    await until(() => senderLog.some((line) => line.includes('"status":"disconnect"')));
    const startedAt = performance.now();
    await expect(sender.hub.dispatch({ licenseKey: BRANCH, op: 'stations.list', params: {} })).rejects.toBeInstanceOf(AgentOfflineError);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    // And answered so because it was never sent: the holder's agent got no job, then or later
    // (the holder itself still reaches it, as its own job shows).
    await expect(holder.hub.dispatch({ licenseKey: BRANCH, op: 'stations.list', params: {}, timeoutMs: 300 })).rejects.toThrow();
    expect(received.filter((type) => type === 'job')).toHaveLength(1);
    // Its own agents still work: a load balancer keeps sending it requests.
    const ready = await sender.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
  });
});
