/**
 * A compromised branch server holds its agent's token and can send `events` messages without
 * waiting for their acknowledgements, as an agent does (one batch in flight at a time). Each
 * is a transaction on the store's pool the whole gateway shares: stored all at once, a flood
 * held every connection and made other users' requests wait behind it. A connection's batches
 * are stored one after the other, and those beyond a few waiting are dropped unacknowledged
 * (an agent sends again what was not acknowledged). Real gateway and store, raw WebSocket agents
 * with real tokens.
 */
import { expect, it, vi } from 'vitest';
import type { BranchEvent } from '../../src/protocol/events.js';
import { gatewayAloneSuite, greetedAgent } from '../support/gateway-alone.js';

const FLOODER = 'EVFL000000000010';
const OTHER = 'EVFL000000000020';
let other = 0;
const alone = gatewayAloneSuite({
  register: async (store) => {
    await store.upsertBranch(await store.ensureUser('flooder'), FLOODER, 'agt_evfl_1', 'flooder');
    other = await store.ensureUser('other');
    await store.upsertBranch(other, OTHER, 'agt_evfl_2', 'other');
  },
});

const event = (n: number): BranchEvent => ({
  id: `evt_${n}`,
  type: 'orden.abierta',
  licenseKey: FLOODER,
  timestamp: new Date().toISOString(),
  origin: 'pos',
  jobId: null,
  data: { folio: n },
});

it("stores a connection's batches one at a time, so another user's reads wait for none of a flood", async () => {
  const ws = await greetedAgent(alone().wsUrl, 'agt_evfl_1', { licenseKey: FLOODER });
  let acks = 0;
  ws.on('message', (raw: Buffer) => void ((JSON.parse(raw.toString()) as { type: string }).type === 'eventsAck' && acks++));
  const batch = JSON.stringify({ type: 'events', events: Array.from({ length: 200 }, (_, i) => event(i)) });
  const BATCHES = 300;
  for (let i = 0; i < BATCHES - 1; i++) ws.send(batch);
  await new Promise<void>((resolve, reject) => ws.send(batch, (error) => (error ? reject(error) : resolve())));
  // The flood has reached the gateway once the first batch is acknowledged.
  await vi.waitFor(() => expect(acks).toBeGreaterThan(0), { timeout: 20_000 });
  const started = Date.now();
  expect(await alone().store.fleet.detail(other, OTHER)).toMatchObject({ licenseKey: OTHER });
  const elapsed = Date.now() - started;
  ws.close();
  expect(elapsed).toBeLessThan(500);
  expect((await alone().store.events.feed(FLOODER, undefined, 500)).length).toBe(200);
});
