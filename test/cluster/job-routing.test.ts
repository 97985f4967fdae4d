/**
 * One gateway in cluster mode against a real NATS server, with the other instances played by a
 * plain NATS client: a routed job whose holder goes silent fails as soon as the agent turns up
 * elsewhere, and a late announcement of an older connection closes nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { connect, type NatsConnection } from 'nats';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { newSecret } from '../../src/gateway/secrets.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { AGENT_PATH } from '../../src/protocol/messages.js';
import { newGatewayDatabase } from '../support/databases.js';
import { natsServerMissing, startNatsServer, type NatsServer } from '../support/gateway-cluster.js';
import { until } from '../support/until.js';

const missing = natsServerMissing();
if (missing) console.log(`Job routing suite skipped: ${missing}.`);

const BRANCH = 'TEST000000000001';
const API_KEY = 'routing-key';

describe.skipIf(missing)(`job routing${missing ? ' (skipped: see the line above)' : ''}`, () => {
  let nats: NatsServer;
  let store: GatewayStore;
  let gateway: Gateway;
  let url: string;
  let peer: NatsConnection;
  let token: string;
  const sockets: WebSocket[] = [];

  beforeAll(async () => {
    [nats, store] = await Promise.all([startNatsServer(), newGatewayDatabase().then((u) => new GatewayStore(u))]);
    const user = await store.ensureUser('tester');
    await store.addApiKey(user, API_KEY, 'routing');
    token = newSecret('agt');
    await store.upsertBranch(user, BRANCH, token, 'Centro');
    gateway = await buildGateway({ store, log: pino({ level: 'silent' }), webhookKey: randomBytes(32), jobTimeoutMs: 10_000, cluster: { natsUrl: nats.url } });
    url = (await gateway.app.listen({ host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
    peer = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    for (const ws of sockets) ws.terminate();
    await peer?.close();
    await gateway?.app.close();
    await store?.close();
    await nats?.stop();
  });

  /** An agent that says hello (`sentAt` by its own clock, when given) and then never answers a job. */
  async function silentAgent(sentAt?: Date): Promise<WebSocket> {
    const ws = new WebSocket(new URL(AGENT_PATH, url.replace(/^http/, 'ws')), { headers: { authorization: `Bearer ${token}` } });
    sockets.push(ws);
    await new Promise((r) => ws.once('open', r));
    const health = sentAt ? { health: { sentAt: sentAt.toISOString(), posDatabase: 'ok', jobsRunning: 0, lastError: null } } : {};
    ws.send(JSON.stringify({ type: 'hello', licenseKey: BRANCH, workerId: 'silent', agentVersion: '0', posVersion: null, ...health }));
    await until(() => gateway.hub.agentFor(BRANCH) !== undefined);
    return ws;
  }

  it('fails a routed job at once when the agent connects elsewhere, not at its timeout', async () => {
    // Another instance holds the branch and goes silent, as one that was killed does.
    let routed = false;
    const deadHolder = peer.subscribe(`branch-agent.jobs.${BRANCH}`, { callback: () => (routed = true) });
    await peer.flush();
    const startedAt = Date.now();
    const answer = fetch(`${url}/productos/${BRANCH}?pageSize=1`, { headers: { 'x-api-key': API_KEY } });
    // Sent to the dead holder, and longer ago than the margin a job just sent is given (job-routing.ts).
    await until(() => routed);
    await sleep(300);
    deadHolder.unsubscribe();
    // The agent comes back on this instance.
    await silentAgent();
    const res = await answer;
    expect(res.status).toBe(503);
    expect(((await res.json()) as { code: string }).code).toBe('agent_offline');
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });

  it('keeps a connection newer than an announcement that arrives late', async () => {
    const ws = sockets.at(-1) ?? (await silentAgent());
    peer.publish(`branch-agent.agents.${BRANCH}`, JSON.stringify({ instanceId: 'other', helloSentAt: new Date(Date.now() - 60_000).toISOString() }));
    await peer.flush();
    await sleep(200);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    peer.publish(`branch-agent.agents.${BRANCH}`, JSON.stringify({ instanceId: 'other', helloSentAt: new Date().toISOString() }));
    await until(() => ws.readyState === WebSocket.CLOSED, 2_000);
    expect(gateway.hub.agentFor(BRANCH)).toBeUndefined();
  });

  it("orders one agent's connections by the agent's clock, whatever the gateways' clocks say", async () => {
    for (const socket of sockets) socket.terminate();
    await until(() => gateway.hub.agentFor(BRANCH) === undefined);
    // The branch server's clock runs ten minutes behind the gateways'.
    const agentClock = Date.now() - 600_000;
    const ws = await silentAgent(new Date(agentClock));
    // An instance whose clock is ten minutes ahead of this one's announced the agent's earlier
    // connection late: by any gateway's clock it is the newer; by the agent's it is the older.
    peer.publish(`branch-agent.agents.${BRANCH}`, JSON.stringify({ instanceId: 'ahead', helloSentAt: new Date(agentClock - 5_000).toISOString() }));
    await peer.flush();
    await sleep(200);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    // Its hello a second later by the agent's clock: the connection here is the older one.
    peer.publish(`branch-agent.agents.${BRANCH}`, JSON.stringify({ instanceId: 'behind', helloSentAt: new Date(agentClock + 1_000).toISOString() }));
    await until(() => ws.readyState === WebSocket.CLOSED, 2_000);
  });

  it('refuses to start with a token the NATS server does not take, and says so without it', async () => {
    const guarded = await startNatsServer({ token: 'right-token' });
    try {
      const wrong = guarded.url.replace('right-token', 'wrong-token');
      const error = await buildGateway({ store, log: pino({ level: 'silent' }), webhookKey: randomBytes(32), cluster: { natsUrl: wrong } }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(String(error?.message)).toMatch(/AUTHORIZATION/i);
      expect(String(error?.message)).not.toContain('wrong-token');
      const right = await buildGateway({ store, log: pino({ level: 'silent' }), webhookKey: randomBytes(32), cluster: { natsUrl: guarded.url } });
      await right.app.close();
    } finally {
      await guarded.stop();
    }
  });
});
