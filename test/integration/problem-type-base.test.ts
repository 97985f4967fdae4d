/**
 * A problem's `type` is on the gateway's configured public address (`publicUrl`), whatever
 * Host the request named: without it the Host header, which the client chooses, came back in
 * every problem, and behind a proxy the type named the proxy's view of the gateway.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { newGatewayDatabase } from '../support/databases.js';

let store: GatewayStore;
let gateway: Gateway;
let port: number;

beforeAll(async () => {
  store = new GatewayStore(await newGatewayDatabase());
  gateway = await buildGateway({ store, log: pino({ level: 'silent' }), webhookKey: randomBytes(32), publicUrl: 'https://api.example.com/pos/' });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  port = (gateway.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await gateway?.app.close();
  await store?.close();
});

/** Sends `request` as it is and answers the problem in the reply. */
function problemFor(request: string): Promise<{ status: number; body: { type: string; code: string } }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n', 2);
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) as { type: string; code: string } });
    });
  });
}

it('names the public address in a route’s problem, not the Host the request sent', async () => {
  const res = await problemFor('GET /sucursales HTTP/1.1\r\nHost: "><script>.evil.example\r\nConnection: close\r\n\r\n');
  expect(res.status).toBe(401);
  expect(res.body.type).toBe('https://api.example.com/pos/problems/unauthorized');
});

it('names it in a problem Node’s parser answers before any route', async () => {
  const res = await problemFor('NOT HTTP AT ALL\r\n\r\n');
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: 'malformed_request', type: 'https://api.example.com/pos/problems/malformed_request' });
});

it('takes only an http or https address', () => {
  expect(parseConfig({ gateway: { publicUrl: 'https://api.example.com' } }, {}).gateway?.publicUrl).toBe('https://api.example.com');
  expect(() => parseConfig({ gateway: { publicUrl: 'javascript:alert(1)' } }, {})).toThrow(/publicUrl/);
  expect(() => parseConfig({ gateway: { publicUrl: 'api.example.com' } }, {})).toThrow(/publicUrl/);
});
