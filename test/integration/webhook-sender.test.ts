/**
 * A webhook attempt's time limit is the whole attempt's: a receiver that never answers, and one
 * that answers 200 and then trickles its body, both fail as `timeout` when it runs out. Before,
 * the limit was a silence, and the trickling receiver held the attempt past the delivery's lease.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { sendWebhook } from '../../src/gateway/webhook-sender.js';

const policy = { allowHttp: true, allowLoopback: true, allowPrivate: false };
const message = { id: 'evt_1', body: '{"type":"test"}', secret: `whsec_${Buffer.alloc(24, 1).toString('base64')}` };
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

async function receiver(answer: (res: import('node:http').ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => req.resume().on('end', () => answer(res)));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

it('fails an attempt whose answer trickles in past the time limit', async () => {
  const url = await receiver((res) => {
    res.writeHead(200);
    const drip = setInterval(() => res.write('.'), 100);
    res.on('close', () => clearInterval(drip));
  });
  const result = await sendWebhook(url, message, policy, 500);
  expect(result).toMatchObject({ status: null, error: 'timeout' });
  expect(result.durationMs).toBeLessThan(900);
});

it('fails an attempt that gets no answer at the time limit, and delivers one answered in time', async () => {
  const silent = await receiver(() => undefined);
  const result = await sendWebhook(silent, message, policy, 300);
  expect(result).toMatchObject({ status: null, error: 'timeout' });
  expect(result.durationMs).toBeGreaterThanOrEqual(290);
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  const answered = await receiver((res) => res.end('ok'));
  expect(await sendWebhook(answered, message, policy, 300)).toMatchObject({ status: 200, error: null });
});

it('does not follow a redirect: a 3xx is a failed attempt, and its target gets nothing', async () => {
  let reached = 0;
  const target = createServer((_req, res) => {
    reached++;
    res.end('ok');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  try {
    const url = await receiver((res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${(target.address() as AddressInfo).port}/elsewhere` });
      res.end();
    });
    expect(await sendWebhook(url, message, policy, 1_000)).toMatchObject({ status: 302, error: 'http_302' });
    expect(reached).toBe(0);
  } finally {
    await new Promise((resolve) => target.close(resolve));
  }
});

it('checks the address a name resolves to when it connects: a name for loopback is refused', async () => {
  const url = await receiver((res) => res.end('ok'));
  const byName = url.replace('127.0.0.1', 'localhost');
  expect(await sendWebhook(byName, message, { ...policy, allowLoopback: false }, 1_000)).toMatchObject({ status: null, error: 'refused_address' });
});
