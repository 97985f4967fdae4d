/**
 * The agent's own GET (src/agent/http-get.ts) against real loopback servers: an answer read
 * whole, a server that never answers and one that stalls in the middle of its body, both cut
 * at the deadline as fetch's AbortSignal.timeout did, and a URL it cannot fetch.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { httpGet, readText } from '../../src/agent/http-get.js';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/ok') res.end(JSON.stringify({ version: '1.2.3' }));
    if (req.url === '/stalls') {
      res.writeHead(200, { 'content-length': '100' });
      res.write('half');
    }
    // /silent: never answered
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

it('reads an answer whole', async () => {
  const res = await httpGet(`${base}/ok`, { timeoutMs: 2_000 });
  expect(res.statusCode).toBe(200);
  expect(JSON.parse(await readText(res))).toEqual({ version: '1.2.3' });
});

it('gives up on a server that never answers at the deadline, as a TimeoutError', async () => {
  const started = Date.now();
  const error = await httpGet(`${base}/silent`, { timeoutMs: 300 }).catch((e: unknown) => e as Error);
  expect(error).toMatchObject({ name: 'TimeoutError', message: expect.stringMatching(/no complete answer within 0\.3 s/) });
  expect(Date.now() - started).toBeLessThan(5_000);
});

it('cuts a body that stalls at the same deadline', async () => {
  const res = await httpGet(`${base}/stalls`, { timeoutMs: 300 });
  expect(res.statusCode).toBe(200);
  await expect(readText(res)).rejects.toMatchObject({ name: 'TimeoutError' });
});

it('refuses what is not http: or https:', async () => {
  await expect(httpGet('ftp://127.0.0.1/x', { timeoutMs: 300 })).rejects.toThrow(/only http: and https: URLs are supported/);
});
