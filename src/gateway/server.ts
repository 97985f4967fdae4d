/** `branch-agent gateway`: the store (external or embedded), the HTTP server, clean shutdown. */
import type { Logger } from 'pino';
import type { GatewayFileConfig } from '../config/schema.js';
import { buildGateway } from './app.js';
import { openGatewayStore } from './open-store.js';

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
