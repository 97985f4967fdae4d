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
