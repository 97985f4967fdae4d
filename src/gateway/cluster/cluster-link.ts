/**
 * Cluster mode: this instance joins the others on one NATS server (they share one PostgreSQL
 * store already). It routes jobs to whichever instance holds a branch's agent, keeps one
 * connection per agent across instances, and on a rolling restart hands its agents over.
 */
import { randomUUID } from 'node:crypto';
import { Events, connect } from 'nats';
import type { Logger } from 'pino';
import type { AgentHub } from '../hub.js';
import type { GatewayStore } from '../store.js';
import { AgentTakeover } from './agent-takeover.js';
import { JobRouting } from './job-routing.js';
import { natsConnectOptions } from './nats-servers.js';

export interface ClusterOptions {
  /** One URL or several, comma-separated, as NATS_URL takes them. */
  natsUrl: string;
}

export interface ClusterLink {
  /** Takes no more routed jobs, waits for the ones here, and sends the agents elsewhere. */
  handOver(graceMs: number): Promise<void>;
  close(): Promise<void>;
}

/** Rate-limit windows older than this are deleted; a window lasts seconds. */
const RATE_WINDOW_KEEP_MS = 10 * 60_000;

export async function joinCluster(opts: ClusterOptions, hub: AgentHub, store: GatewayStore, log: Logger): Promise<ClusterLink> {
  // Tells this instance's announcements from the others', and names it in the NATS server's list.
  const instanceId = randomUUID();
  const nc = await connect({
    ...natsConnectOptions(opts.natsUrl),
    name: `branch-agent gateway ${instanceId}`,
    // The link comes back by itself after a NATS restart; until then jobs for agents on other
    // instances fail (503 or 504), and the agents here keep working.
    maxReconnectAttempts: -1,
  });
  log.info({ instanceId, server: nc.getServer() }, 'joined the gateway cluster');
  const routing = new JobRouting(nc, hub, log);
  const takeover = new AgentTakeover(nc, instanceId, hub, (licenseKey) => routing.agentMoved(licenseKey));
  hub.joinCluster({
    agentConnected: (licenseKey, helloSentAt) => {
      routing.serve(licenseKey);
      takeover.announce(licenseKey, helloSentAt);
    },
    agentLeft: (licenseKey) => routing.stopServing(licenseKey),
    dispatchElsewhere: (job) => routing.dispatch(job),
  });
  const purge = setInterval(() => {
    store.rateLimits.purge(RATE_WINDOW_KEEP_MS).catch((error: unknown) => log.warn({ err: error }, 'old rate-limit windows not purged'));
  }, RATE_WINDOW_KEEP_MS / 2);
  purge.unref();
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type !== Events.Disconnect && status.type !== Events.Reconnect) continue;
      log.warn({ status: status.type }, 'NATS link changed');
      routing.linkChanged(status.type === Events.Reconnect);
    }
  })();
  return {
    async handOver(graceMs) {
      routing.stopServingAll();
      await hub.drain(graceMs);
    },
    async close() {
      clearInterval(purge);
      takeover.stop();
      await nc.drain().catch(() => nc.close());
    },
  };
}
