/** `branch-agent gateway`: the store (external or embedded), the HTTP server, clean shutdown. */
import type { Logger } from 'pino';
import { ConfigError } from '../config/load.js';
import type { GatewayFileConfig } from '../config/schema.js';
import { buildGateway, type Gateway } from './app.js';
import { growHeapBetweenFullCollections } from './heap-growth.js';
import { openGatewayStore } from './open-store.js';
import { parseWebhookKey, webhookKeyFile } from './webhook-secrets.js';

export async function runGateway(config: GatewayFileConfig, log: Logger): Promise<() => Promise<void>> {
  growHeapBetweenFullCollections();
  // Instances of a cluster share one store: an embedded one is each instance's own.
  if (config.cluster && !config.databaseUrl)
    throw new ConfigError('Cluster mode (gateway.cluster.natsUrl or NATS_URL) needs a shared store: set gateway.databaseUrl or GATEWAY_DATABASE_URL.');
  const opened = await openGatewayStore(config, log);
  let app: Gateway['app'] | undefined;
  try {
    ({ app } = await buildGateway({
      store: opened.store,
      log,
      jobTimeoutMs: config.jobTimeoutMs,
      printers: config.printers,
      rateLimit: config.rateLimit,
      failedAuthLimit: config.failedAuthLimit,
      trustProxy: config.trustProxy,
      publicUrl: config.publicUrl,
      idempotencyRetentionHours: config.idempotencyRetentionHours,
      jobLogRetentionDays: config.jobLogRetentionDays,
      purgeIntervalMs: config.purgeIntervalMinutes * 60_000,
      eventRetentionDays: config.eventRetentionDays,
      webhookKey: config.webhookKey ? parseWebhookKey(config.webhookKey) : webhookKeyFile(config.dataDir),
      webhooks: config.webhooks,
      cluster: config.cluster,
    }));
    const address = await app.listen({ host: config.host, port: config.port });
    log.info({ address }, 'gateway listening');
  } catch (error) {
    // A gateway that cannot start leaves nothing running behind it (the embedded store above all).
    await app?.close().catch(() => undefined);
    await opened.close().catch(() => undefined);
    throw error;
  }
  const started = app;
  return async () => {
    await started.close();
    await opened.close();
  };
}
