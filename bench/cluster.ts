/**
 * cluster hop ratio (a real nats-server on a free port; skipped with a line saying why without
 * one): p50 of GET /productos?pageSize=50 sent to the instance that does not hold the agent
 * (routed over NATS) divided by the same request sent to the instance that holds it. Target: at
 * most 1.3. (Agents per instance: agents.ts.)
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildGateway, type Gateway } from '../src/gateway/app.js';
import { newSecret } from '../src/gateway/secrets.js';
import { GatewayStore } from '../src/gateway/store.js';
import { spawnAgent, stopAgent } from './agent-process.js';
import type { BenchContext } from './run.js';
import { requestOk } from './http-client.js';
import { compare } from './measure.js';
import { natsServerMissing, startNatsServer } from '../test/support/gateway-cluster.js';
import { until } from '../test/support/until.js';

export async function clusterBench({ cluster, posUrl }: BenchContext): Promise<string[]> {
  const missing = natsServerMissing();
  if (missing) return [`cluster hop ratio: skipped (${missing})`];
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
      await requestOk(`${base}/productos/${licenseKey}?pageSize=50`, { headers: { 'x-api-key': 'cluster-key' } });
    };
    const { a: hop, b: direct } = await compare(list(other), list(holder), 300);
    return [
      `cluster hop ratio: ${(hop / direct).toFixed(2)}  (via the other instance p50 ${hop.toFixed(2)} ms, via the agent's p50 ${direct.toFixed(2)} ms; target ≤ 1.3)`,
    ];
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    for (const gateway of gateways) await gateway.app.close();
    await store.close();
    await nats.stop();
  }
}
