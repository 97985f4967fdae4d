/**
 * A gateway on a fresh store of its own, on loopback, for tests that speak to it as agents do
 * (raw WebSocket clients): started before the file's tests, closed after them.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { buildGateway, type Gateway, type GatewayOptions } from '../../src/gateway/app.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { newGatewayDatabase } from './databases.js';

export interface GatewayAlone {
  store: GatewayStore;
  gateway: Gateway;
  /** The gateway's ws:// origin. */
  wsUrl: string;
}

/** `register` runs on the migrated store before the gateway starts (users, branches). */
export function gatewayAloneSuite(
  opts: { register?: (store: GatewayStore) => Promise<void>; hub?: GatewayOptions['hub']; requestTimeoutMs?: number } = {},
): () => GatewayAlone {
  let started: GatewayAlone | undefined;
  let store: GatewayStore | undefined;
  let gateway: Gateway | undefined;
  beforeAll(async () => {
    store = new GatewayStore(await newGatewayDatabase());
    await store.migrate();
    await opts.register?.(store);
    gateway = await buildGateway({
      store,
      log: pino({ level: 'silent' }),
      webhookKey: randomBytes(32),
      ...(opts.hub ? { hub: opts.hub } : {}),
      ...(opts.requestTimeoutMs ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
    });
    const wsUrl = (await gateway.app.listen({ host: '127.0.0.1', port: 0 })).replace(/^http/, 'ws');
    started = { store, gateway, wsUrl };
  });
  afterAll(async () => {
    await gateway?.app.close();
    await store?.close();
  });
  return () => started!;
}
