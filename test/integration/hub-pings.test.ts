/**
 * The hub's pings (hub/connection-sweep.ts): an agent that pings the gateway itself is pinged
 * only now and then (for the round trip), one that does not is pinged every interval, and one
 * that stops pinging is pinged again. Real gateway, real WebSocket clients.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { expect, it } from 'vitest';
import { AGENT_PATH } from '../../src/protocol/messages.js';
import { gatewayAloneSuite } from '../support/gateway-alone.js';

const PING_MS = 200;
const alone = gatewayAloneSuite({
  register: async (store) => {
    const user = await store.ensureUser('pings');
    for (const n of [1, 2]) await store.upsertBranch(user, `PING0000000000${n}0`, `agt_pings_${n}`, `pings ${n}`);
  },
  hub: { pingIntervalMs: PING_MS, deadAfterMs: 10_000 },
});

/** A connected agent counting the gateway's pings. */
async function agent(n: number): Promise<{ ws: WebSocket; pings: () => number }> {
  const licenseKey = `PING0000000000${n}0`;
  const ws = new WebSocket(new URL(AGENT_PATH, alone().wsUrl), { headers: { authorization: `Bearer agt_pings_${n}` } });
  let pings = 0;
  ws.on('ping', () => pings++);
  await new Promise((resolve) => ws.once('open', resolve));
  const welcome = new Promise((resolve) => ws.once('message', resolve));
  ws.send(JSON.stringify({ type: 'hello', licenseKey, workerId: `w${n}`, agentVersion: 'test', posVersion: null }));
  await welcome;
  return { ws, pings: () => pings };
}

it('pings an agent that pings it only for the round trip, and one that stopped as any other', async () => {
  const [pinging, silent] = await Promise.all([agent(1), agent(2)]);
  const beat = setInterval(() => pinging.ws.ping(), PING_MS / 2);
  try {
    await sleep(PING_MS * 12);
    expect(silent.pings()).toBeGreaterThanOrEqual(7);
    // The first ping, then one every fourth interval.
    expect(pinging.pings()).toBeGreaterThanOrEqual(1);
    expect(pinging.pings()).toBeLessThanOrEqual(4);
    expect(pinging.pings()).toBeLessThan(silent.pings() / 2);
  } finally {
    clearInterval(beat);
  }
  const before = pinging.pings();
  await sleep(PING_MS * 8);
  expect(pinging.pings() - before).toBeGreaterThanOrEqual(4);
  pinging.ws.close();
  silent.ws.close();
});
