/**
 * An event id is a branch's own: agents derive it from their license key and the change (so a
 * repeated delivery is stored once), and the gateway must not let one branch's events take the
 * ids another's will use. A compromised branch server can compute them (the hash of a license
 * key and a folio) and send events of its own under them; the other branch's real events must
 * still be stored, and reach its feed and its owner's webhooks. Real gateway and store, raw
 * WebSocket agents with real tokens.
 */
import WebSocket from 'ws';
import { expect, it, vi } from 'vitest';
import type { BranchEvent } from '../../src/protocol/events.js';
import { gatewayAloneSuite, greetedAgent } from '../support/gateway-alone.js';

const ATTACKER = 'EVID000000000010';
const VICTIM = 'EVID000000000020';
const alone = gatewayAloneSuite({
  register: async (store) => {
    await store.upsertBranch(await store.ensureUser('evid attacker'), ATTACKER, 'agt_evid_1', 'attacker');
    await store.upsertBranch(await store.ensureUser('evid victim'), VICTIM, 'agt_evid_2', 'victim');
  },
});

/** An agent connected and welcomed; `acks` collects the event ids the gateway acknowledged. */
async function agent(token: string, licenseKey: string): Promise<{ ws: WebSocket; acks: string[] }> {
  const ws = await greetedAgent(alone().wsUrl, token, { licenseKey });
  const acks: string[] = [];
  ws.on('message', (raw: Buffer) => {
    const message = JSON.parse(raw.toString()) as { type: string; ids?: string[] };
    if (message.type === 'eventsAck') acks.push(...message.ids!);
  });
  return { ws, acks };
}

const event = (licenseKey: string, id: string, folio: number): BranchEvent => ({
  id,
  type: 'orden.abierta',
  licenseKey,
  timestamp: new Date().toISOString(),
  origin: 'pos',
  jobId: null,
  data: { folio },
});

it("stores a branch's event whose id another branch's agent used first", async () => {
  const attacker = await agent('agt_evid_1', ATTACKER);
  attacker.ws.send(JSON.stringify({ type: 'events', events: [event(ATTACKER, 'evt_future', 666)] }));
  await vi.waitFor(() => expect(attacker.acks).toEqual(['evt_future']));
  const victim = await agent('agt_evid_2', VICTIM);
  victim.ws.send(JSON.stringify({ type: 'events', events: [event(VICTIM, 'evt_future', 7)] }));
  await vi.waitFor(() => expect(victim.acks).toEqual(['evt_future']));
  const [mine] = await alone().store.events.feed(VICTIM, undefined, 10);
  expect(mine?.event).toMatchObject({ id: 'evt_future', licenseKey: VICTIM, data: { folio: 7 } });
  // The attacker's stays its own.
  expect((await alone().store.events.feed(ATTACKER, undefined, 10)).map((e) => e.event.data)).toEqual([{ folio: 666 }]);
  attacker.ws.close();
  victim.ws.close();
});
