/**
 * An agent's first message (docs/architecture.md, "The agent protocol"): a hello within 10 s
 * naming the token's branch. The gateway closes the socket with 4400 when the first message is
 * not a hello or none comes in time, and with 4401 when the hello names another branch than the
 * token's. Real gateway, raw WebSocket clients with real tokens.
 *
 * The 10 s are counted on the gateway's wall clock, which the hello test moves instead of
 * waiting: a hello still missing 1 ms short of 10 s keeps the socket open through two of the
 * hub's sweeps (once a second), and at 10 s the next sweep closes it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { afterEach, expect, it, vi } from 'vitest';
import { AGENT_PATH } from '../../src/protocol/messages.js';
import { gatewayAloneSuite } from '../support/gateway-alone.js';

const BRANCH = 'HELO000000000010';
const OTHER = 'HELO000000000020';
const alone = gatewayAloneSuite({
  register: async (store) => {
    const user = await store.ensureUser('hello');
    await store.upsertBranch(user, BRANCH, 'agt_hello_1', 'hello 1');
    await store.upsertBranch(user, OTHER, 'agt_hello_2', 'hello 2');
  },
});

afterEach(() => {
  vi.useRealTimers();
});

const hello = (licenseKey: string) => JSON.stringify({ type: 'hello', licenseKey, workerId: 'w', agentVersion: 'test', posVersion: null });

/** A socket with BRANCH's token, open; `closed` resolves with the code the gateway closed it with. */
async function connect(): Promise<{ ws: WebSocket; closed: Promise<number>; messages: unknown[] }> {
  const ws = new WebSocket(new URL(AGENT_PATH, alone().wsUrl), { headers: { authorization: 'Bearer agt_hello_1' } });
  const messages: unknown[] = [];
  ws.on('message', (raw: Buffer) => messages.push(JSON.parse(raw.toString())));
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, closed, messages };
}

it('welcomes a hello for the branch of the token', async () => {
  const { ws, closed, messages } = await connect();
  ws.send(hello(BRANCH));
  await vi.waitFor(() => expect(messages).toEqual([{ type: 'welcome' }]));
  expect(alone().gateway.hub.agentFor(BRANCH)).toBeDefined();
  ws.close();
  await closed;
});

it('closes with 4401 a hello for another branch than the token’s', async () => {
  const { ws, closed, messages } = await connect();
  ws.send(hello(OTHER));
  expect(await closed).toBe(4401);
  expect(messages).toEqual([]);
  expect(alone().gateway.hub.agentFor(OTHER)).toBeUndefined();
});

it.each([
  ['another message', JSON.stringify({ type: 'heartbeat' })],
  ['a hello without its fields', JSON.stringify({ type: 'hello', licenseKey: BRANCH })],
  ['a hello whose license key is not text', JSON.stringify({ type: 'hello', licenseKey: 42, workerId: 'w', agentVersion: 'test', posVersion: null })],
])('closes with 4400 a first message that is %s', async (_case, first) => {
  const { ws, closed, messages } = await connect();
  ws.send(first);
  expect(await closed).toBe(4400);
  expect(messages).toEqual([]);
});

it('closes with 4400 a socket that says no hello within 10 s', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const openedAt = Date.now();
  const { ws, closed } = await connect();
  let closedAt: number | undefined;
  void closed.then(() => (closedAt = Date.now()));

  vi.setSystemTime(openedAt + 9_999);
  await sleep(2_200);
  expect(closedAt, 'closed before 10 s').toBeUndefined();
  expect(ws.readyState).toBe(WebSocket.OPEN);

  vi.setSystemTime(openedAt + 10_000);
  // The next sweep, within a second; five stand for "not at all".
  expect(await Promise.race([closed, sleep(5_000, 'still open')])).toBe(4400);
});
