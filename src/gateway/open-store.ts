/**
 * The gateway's store as configured: an external PostgreSQL, or an embedded one kept in
 * `dataDir`. Apart from the HTTP server, so `branch-agent keys` opens it without loading the API.
 */
import type { Logger } from 'pino';
import type { GatewayFileConfig } from '../config/schema.js';
import { startEmbeddedPostgres } from '../embedded-postgres/cluster.js';
import { GatewayStore } from './store.js';

export interface OpenedStore {
  store: GatewayStore;
  close: () => Promise<void>;
}

/**
 * The configured store, migrated. `shareRunning`: an embedded PostgreSQL that already serves
 * `dataDir` (a running gateway's) is used as it is; `keys` commands ask for that, the gateway not.
 */
export async function openGatewayStore(config: GatewayFileConfig, log: Logger, opts: { shareRunning?: boolean } = {}): Promise<OpenedStore> {
  if (config.databaseUrl) {
    const store = new GatewayStore(config.databaseUrl, { apiKeyCacheSize: config.apiKeyCacheSize });
    await store.migrate();
    return { store, close: () => store.close() };
  }
  log.info({ dataDir: config.dataDir }, 'using an embedded PostgreSQL for the gateway store');
  const cluster = await startEmbeddedPostgres({ dataDir: config.dataDir, shareRunning: opts.shareRunning ?? false, ownProcessGroup: true });
  await cluster.admin('CREATE DATABASE gateway').catch((error: unknown) => {
    if (!/already exists/.test(String(error))) throw error;
  });
  const store = new GatewayStore(cluster.url('gateway'), { apiKeyCacheSize: config.apiKeyCacheSize });
  await store.migrate();
  return {
    store,
    async close() {
      await store.close();
      await cluster.stop();
    },
  };
}
