/**
 * A gateway on a fresh store of its own, on loopback, for tests that speak to it as agents do
 * (raw WebSocket clients): started before the file's tests, closed after them.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import WebSocket from 'ws';
import { buildGateway, type Gateway, type GatewayOptions } from '../../src/gateway/app.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { AGENT_PATH } from '../../src/protocol/messages.js';
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

/**
 * A raw agent connection to `wsUrl` with `token`, past its hello (the fields given over a minimal
 * one for `licenseKey`) and the gateway's welcome: what a test then sends is what an agent would.
 */
export async function greetedAgent(wsUrl: string, token: string, hello: { licenseKey: string } & Record<string, unknown>): Promise<WebSocket> {
  const ws = new WebSocket(new URL(AGENT_PATH, wsUrl), { headers: { authorization: `Bearer ${token}` } });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const welcomed = new Promise((resolve) => ws.once('message', resolve));
  ws.send(JSON.stringify({ type: 'hello', workerId: 'w', agentVersion: '1.0.0', posVersion: null, ...hello }));
  await welcomed;
  return ws;
}
