/**
 * Cluster mode (a real nats-server on a free port; skipped with a line saying why without one):
 * - cluster hop ratio: p50 of GET /productos?pageSize=50 sent to the instance that does not hold
 *   the agent (routed over NATS) divided by the same request sent to the instance that holds it.
 *   Target: at most 1.3.
 * - agents per instance: 1,000 simulated agents (WebSocket clients speaking the agent protocol,
 *   answering each job at once) on one instance, and the p99 of a small job at 200 requests/s
 *   spread over them.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import WebSocket from 'ws';
import { buildGateway, type Gateway } from '../src/gateway/app.js';
import { newSecret } from '../src/gateway/secrets.js';
import { GatewayStore } from '../src/gateway/store.js';
import { AGENT_PATH, frameJson } from '../src/protocol/messages.js';
import { spawnAgent, stopAgent } from './agent-process.js';
import type { BenchContext } from './run.js';
import { request } from './http-client.js';
import { compare, time } from './measure.js';
import { natsServerMissing, startNatsServer } from '../test/support/gateway-cluster.js';
import { until } from '../test/support/until.js';

const SIMULATED_AGENTS = 1_000;
const RATE_PER_SECOND = 200;
const LOAD_SECONDS = 10;

export async function clusterBench({ cluster, posUrl }: BenchContext): Promise<string[]> {
  const missing = natsServerMissing();
  if (missing) return [`cluster hop ratio: skipped (${missing})`, `agents per instance: skipped (${missing})`];
  const nats = await startNatsServer();
  const log = pino({ level: 'warn' });
  await cluster.admin('CREATE DATABASE gateway_cluster');
  await cluster.admin(`CREATE DATABASE pos_cluster TEMPLATE ${new URL(posUrl).pathname.slice(1)}`);
  const store = new GatewayStore(cluster.url('gateway_cluster'));
  await store.migrate();
  const gateways: Gateway[] = [];
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const user = await store.ensureUser('bench');
    await store.addApiKey(user, 'cluster-key', 'bench');
    const webhookKey = randomBytes(32);
    const natsUrl = nats.url;
    const urls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const gateway = await buildGateway({ store, log, webhookKey, cluster: { natsUrl }, rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } });
      gateways.push(gateway);
      urls.push((await gateway.app.listen({ host: '127.0.0.1', port: 0 })).replace('[::1]', '127.0.0.1'));
    }
    const [holder, other] = urls as [string, string];

    const licenseKey = 'CLUSTER000000001';
    const token = newSecret('agt');
    await store.upsertBranch(user, licenseKey, token, 'Cluster bench');
    // Its own process, as at a branch (agent-process.ts): the gateways' work is what is compared.
    const agent = spawnAgent({
      licenseKey,
      workerId: 'cluster-bench',
      gatewayUrl: holder,
      token,
      database: { dialect: 'postgres', url: cluster.url('pos_cluster') },
      health: { port: 0 },
    });
    stops.push(() => stopAgent(agent));
    await until(() => gateways[0]!.hub.agentFor(licenseKey) !== undefined, 30_000);
    const list = (base: string) => async () => {
      const res = await request(`${base}/productos/${licenseKey}?pageSize=50`, { headers: { 'x-api-key': 'cluster-key' } });
      if (res.status !== 200) throw new Error(`API answered ${res.status}: ${res.body}`);
    };
    const { a: hop, b: direct } = await compare(list(other), list(holder), 300);
    const lines = [
      `cluster hop ratio: ${(hop / direct).toFixed(2)}  (via the other instance p50 ${hop.toFixed(2)} ms, via the agent's p50 ${direct.toFixed(2)} ms; target ≤ 1.3)`,
    ];

    const branches = await simulatedAgents(store, user, holder, stops);
    await until(() => gateways[0]!.hub.connectedCount >= SIMULATED_AGENTS + 1, 60_000);
    const latencies: number[] = [];
    const sent: Array<Promise<void>> = [];
    const start = Date.now();
    for (let i = 0; i < RATE_PER_SECOND * LOAD_SECONDS; i++) {
      // Open loop: requests leave on schedule whether or not earlier ones were answered.
      const due = start + (i * 1000) / RATE_PER_SECOND;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      const branch = branches[i % branches.length]!;
      sent.push(
        time(async () => {
          const res = await request(`${holder}/turnos/${branch}`, { headers: { 'x-api-key': 'cluster-key' } });
          if (res.status !== 200) throw new Error(`API answered ${res.status}: ${res.body}`);
        }).then((ms) => void latencies.push(ms)),
      );
    }
    await Promise.all(sent);
    const elapsed = (Date.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    lines.push(
      `agents per instance: ${SIMULATED_AGENTS} simulated agents on one instance; small job p99 ${at(0.99).toFixed(1)} ms, p50 ${at(0.5).toFixed(1)} ms at ${(latencies.length / elapsed).toFixed(0)} requests/s`,
    );
    return lines;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    for (const gateway of gateways) await gateway.app.close();
    await store.close();
    await nats.stop();
  }
}

/** Registers and connects the simulated agents; each answers every job at once with an empty shift list. */
async function simulatedAgents(store: GatewayStore, user: number, url: string, stops: Array<() => Promise<unknown>>): Promise<string[]> {
  const branches = Array.from({ length: SIMULATED_AGENTS }, (_, i) => `SIM${String(i).padStart(13, '0')}`);
  const sockets: WebSocket[] = [];
  stops.push(async () => {
    for (const ws of sockets) ws.terminate();
  });
  for (let i = 0; i < branches.length; i += 50) {
    await Promise.all(
      branches.slice(i, i + 50).map(async (licenseKey) => {
        const token = newSecret('agt');
        await store.upsertBranch(user, licenseKey, token, licenseKey);
        const ws = new WebSocket(new URL(AGENT_PATH, url.replace(/^http/, 'ws')), { headers: { authorization: `Bearer ${token}` } });
        sockets.push(ws);
        ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', licenseKey, workerId: `sim-${licenseKey}`, agentVersion: 'bench', posVersion: null })));
        ws.on('message', (raw) => {
          const message = frameJson(raw) as { type?: string; jobId?: string };
          if (message.type === 'job')
            ws.send(JSON.stringify({ type: 'result', jobId: message.jobId, ok: true, data: { items: [], page: 1, pageSize: 50, total: 0 } }));
        });
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      }),
    );
  }
  return branches;
}
