/**
 * A client that sends its request slowly, a byte now and then, gets 408 once the request time
 * limit passes, and its connection is closed: before, Fastify set no limit, and such clients
 * (with a key, or without one sending headers) held sockets until the gateway ran out of file
 * descriptors. A long poll of the event feed is a slow answer, not a slow request, and is not cut.
 */
import net from 'node:net';
import { expect, it } from 'vitest';
import { gatewayAloneSuite } from '../support/gateway-alone.js';

const alone = gatewayAloneSuite({
  requestTimeoutMs: 1_000,
  register: async (store) => {
    await store.addApiKey(await store.ensureUser('slow'), 'slow-key');
  },
});

/** Sends `head` and then a byte of body every 300 ms; resolves with what the gateway answered and when it closed. */
function trickle(head: string): Promise<{ answer: string; afterMs: number }> {
  const { port } = new URL(alone().wsUrl);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(head));
    let answer = '';
    const drip = setInterval(() => socket.write('x'), 300);
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(drip);
      resolve({ answer, afterMs: Date.now() - started });
    });
  });
}

it('answers 408 to a body that trickles past the time limit, and closes the connection', async () => {
  const { answer, afterMs } = await trickle(
    'POST /webhooks HTTP/1.1\r\nHost: gateway\r\nX-Api-Key: slow-key\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
  );
  expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  expect(afterMs).toBeLessThan(4_000);
});

it('answers 408 to headers that never end', async () => {
  const { answer, afterMs } = await trickle('GET /healthz HTTP/1.1\r\nHost: gateway\r\nX-Slow: ');
  expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  expect(afterMs).toBeLessThan(4_000);
});
