/** `branch-agent gateway`: the store (external or embedded), the HTTP server, clean shutdown. */
import type { Logger } from 'pino';
import type { GatewayFileConfig } from '../config/schema.js';
import { startEmbeddedPostgres } from '../demo/embedded-postgres.js';
import { buildGateway } from './app.js';
import { GatewayStore } from './store.js';

export interface OpenedStore {
  store: GatewayStore;
  close(): Promise<void>;
}

/** The configured store, or an embedded PostgreSQL kept in `dataDir` between runs. */
export async function openGatewayStore(config: GatewayFileConfig, log: Logger): Promise<OpenedStore> {
  if (config.databaseUrl) {
    const store = new GatewayStore(config.databaseUrl);
    await store.migrate();
    return { store, close: () => store.close() };
  }
  log.info({ dataDir: config.dataDir }, 'using an embedded PostgreSQL for the gateway store');
  const cluster = await startEmbeddedPostgres({ dataDir: config.dataDir });
  await cluster.admin('CREATE DATABASE gateway').catch((error: unknown) => {
    if (!/already exists/.test(String(error))) throw error;
  });
  const store = new GatewayStore(cluster.url('gateway'));
  await store.migrate();
  return {
    store,
    async close() {
      await store.close();
      await cluster.stop();
    },
  };
}

export async function runGateway(config: GatewayFileConfig, log: Logger): Promise<() => Promise<void>> {
  const opened = await openGatewayStore(config, log);
  const { app } = await buildGateway({ store: opened.store, log, jobTimeoutMs: config.jobTimeoutMs, rateLimit: config.rateLimit });
  const address = await app.listen({ host: config.host, port: config.port });
  log.info({ address }, 'gateway listening');
  return async () => {
    await app.close();
    await opened.close();
  };
}
