/**
 * A routed job can reach two instances: the one holding the branch's agent, and one whose
 * connection to it was just replaced (its subscription still draining). The second answers
 * 'offline' at once; taken as the answer, the client was told 503 while the holder ran the job
 * and committed its write. Two real gateways on one NATS server; the stale instance is a plain
 * NATS client answering as one does (a real one's window is milliseconds wide).
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { connect, type Msg, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { AgentOfflineError } from '../../src/gateway/hub.js';
import { newSecret } from '../../src/gateway/secrets.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { AGENT_PATH, frameJson } from '../../src/protocol/messages.js';
import { newGatewayDatabase } from '../support/databases.js';
import { natsServerMissing, startNatsServer, type NatsServer } from '../support/gateway-cluster.js';
import { until } from '../support/until.js';

const missing = natsServerMissing();
if (missing) console.log(`Stale offline reply suite skipped: ${missing}.`);

const HELD = 'STAL000000000001';
const ARRIVING = 'STAL000000000002';
/** What an instance that no longer holds the agent answers a job that still reached it. */
const STALE_REPLY = JSON.stringify({ failure: 'offline', message: 'No agent is connected for this branch.' });

describe.skipIf(missing)(`a stale instance's offline reply${missing ? ' (skipped: see the line above)' : ''}`, () => {
  let nats: NatsServer;
  let store: GatewayStore;
  let holder: Gateway;
  let sender: Gateway;
  let holderUrl: string;
  let stale: NatsConnection;
  const tokens = new Map<string, string>();
  const sockets: WebSocket[] = [];

  const start = async () => {
    const gateway = await buildGateway({
      store,
      log: pino({ level: 'silent' }),
      webhookKey: randomBytes(32),
      jobTimeoutMs: 10_000,
      cluster: { natsUrl: nats.url },
    });
    const url = (await gateway.app.listen({ host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1');
    return { gateway, url };
  };

  beforeAll(async () => {
    [nats, store] = await Promise.all([startNatsServer(), newGatewayDatabase().then((u) => new GatewayStore(u))]);
    const user = await store.ensureUser('tester');
    for (const licenseKey of [HELD, ARRIVING]) {
      tokens.set(licenseKey, newSecret('agt'));
      await store.upsertBranch(user, licenseKey, tokens.get(licenseKey)!, licenseKey);
    }
    const [held, sending] = await Promise.all([start(), start()]);
    ({ gateway: holder, url: holderUrl } = held);
    sender = sending.gateway;
    stale = await connect({ servers: nats.url });
  });

  afterAll(async () => {
    for (const ws of sockets) ws.terminate();
    await stale?.close();
    await holder?.app.close();
    await sender?.app.close();
    await store?.close();
    await nats?.stop();
  });

  /** An agent on the holder that keeps the jobs it gets until the test answers them. */
  async function agentOnHolder(licenseKey: string): Promise<{ ws: WebSocket; jobs: string[] }> {
    const ws = new WebSocket(new URL(AGENT_PATH, holderUrl.replace(/^http/, 'ws')), { headers: { authorization: `Bearer ${tokens.get(licenseKey)}` } });
    sockets.push(ws);
    const jobs: string[] = [];
    ws.on('message', (raw) => {
      const message = frameJson(raw) as { type?: string; jobId?: string };
      if (message.type === 'job') jobs.push(message.jobId!);
    });
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'hello', licenseKey, workerId: 'w', agentVersion: '0', posVersion: null }));
    await until(() => holder.hub.agentFor(licenseKey) !== undefined);
    return { ws, jobs };
  }

  /** The stale instance: it still receives the branch's jobs, and answers them only when told. */
  async function staleInstance(licenseKey: string): Promise<Msg[]> {
    const received: Msg[] = [];
    stale.subscribe(`branch-agent.jobs.${licenseKey}`, { callback: (_error, msg) => received.push(msg) });
    await stale.flush();
    return received;
  }

  it("answers with the holder's result, not with an offline answer that came first", async () => {
    const agent = await agentOnHolder(HELD);
    const received = await staleInstance(HELD);
    const answer = sender.hub.dispatch({ licenseKey: HELD, op: 'orders.create', params: {} });
    // Awaited below; a rejection before that is not an unhandled one.
    answer.catch(() => undefined);
    await until(() => agent.jobs.length === 1 && received.length === 1);
    // The stale answer is through the NATS server before the agent answers the holder: the
    // sender receives it first.
    received[0]!.respond(STALE_REPLY);
    await stale.flush();
    agent.ws.send(JSON.stringify({ type: 'result', jobId: agent.jobs[0], ok: true, data: { folio: 7 } }));
    expect(await answer).toMatchObject({ ok: true, data: { folio: 7 } });
  });

  it('answers offline at once when the holder never received the job', async () => {
    const received = await staleInstance(ARRIVING);
    const startedAt = performance.now();
    const refused = expect(sender.hub.dispatch({ licenseKey: ARRIVING, op: 'orders.create', params: {} })).rejects.toBeInstanceOf(AgentOfflineError);
    await until(() => received.length === 1);
    // The agent connects to the holder after the job was sent: it is not running it.
    const agent = await agentOnHolder(ARRIVING);
    received[0]!.respond(STALE_REPLY);
    await refused;
    // Not at the job's timeout (10 s).
    expect(performance.now() - startedAt).toBeLessThan(5_000);
    expect(agent.jobs).toEqual([]);
  });
});
