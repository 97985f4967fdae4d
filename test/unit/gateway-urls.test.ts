/**
 * An agent that knows several gateways: each retry goes to the next one, and a gateway that
 * says `reconnect` (a rolling restart) is left at once for the next, without a backoff.
 */
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { GatewayConnection } from '../../src/agent/connection.js';
import { parseConfig } from '../../src/config/load.js';
import { until } from '../support/until.js';

const servers: WebSocketServer[] = [];
const connections: GatewayConnection[] = [];
afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.stop()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function fakeGateway(): Promise<{ url: string; server: WebSocketServer; hellos: number }> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  servers.push(server);
  await new Promise((r) => server.once('listening', r));
  const gateway = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, hellos: 0 };
  server.on('connection', (ws) => ws.on('message', () => gateway.hellos++));
  return gateway;
}

function connect(urls: string[], backoffBaseMs: number): GatewayConnection {
  const connection = new GatewayConnection({
    gatewayUrls: urls,
    token: 't',
    log: pino({ level: 'silent' }),
    hello: () => ({ type: 'hello', licenseKey: 'TEST000000000001', workerId: 'w', agentVersion: '0', posVersion: null }),
    onJob: () => undefined,
    backoffBaseMs,
    backoffMaxMs: backoffBaseMs,
  });
  connections.push(connection);
  connection.start();
  return connection;
}

it('moves to the next gateway at once when told to reconnect, and back when that one goes away', async () => {
  const [a, b] = [await fakeGateway(), await fakeGateway()];
  // A backoff this long would fail the test: a reconnect order must not wait for it.
  const connection = connect([a.url, b.url], 60_000);
  await until(() => a.hellos === 1);
  const movedAt = Date.now();
  for (const ws of a.server.clients) ws.send(JSON.stringify({ type: 'reconnect' }));
  await until(() => b.hellos === 1);
  expect(Date.now() - movedAt).toBeLessThan(1_000);
  expect(connection.gatewayUrl).toBe(b.url);
});

it('tries the next gateway after a lost connection', async () => {
  const [a, b] = [await fakeGateway(), await fakeGateway()];
  const connection = connect([a.url, b.url], 20);
  await until(() => a.hellos === 1);
  for (const ws of a.server.clients) ws.terminate();
  await until(() => b.hellos === 1);
  expect(connection.gatewayUrl).toBe(b.url);
});

it('reads gatewayUrls beside the old gatewayUrl, which comes first', () => {
  const agent = (extra: Record<string, unknown>) =>
    parseConfig({ agent: { licenseKey: 'TEST000000000001', token: 't', database: { dialect: 'postgres', url: 'postgres://x' }, ...extra } }).agent!;
  expect(agent({ gatewayUrl: 'http://a' }).gatewayUrls).toEqual(['http://a']);
  const both = agent({ gatewayUrl: 'http://a', gatewayUrls: ['http://b', 'http://a'] });
  expect([both.gatewayUrl, both.gatewayUrls]).toEqual(['http://a', ['http://a', 'http://b']]);
  expect(agent({ gatewayUrls: ['http://b'] }).gatewayUrl).toBe('http://b');
  expect(() => agent({})).toThrow(/gatewayUrl or gatewayUrls is required/);
});
