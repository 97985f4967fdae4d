/**
 * A compromised branch server holds its agent's token and can send heartbeats as fast as its
 * link allows. What the gateway keeps of them is each branch's latest, not each beat: its
 * memory does not grow with the flood, and the other branches' hellos and beats are written as
 * soon as without it. Real gateway and store, raw WebSocket agents with real tokens.
 */
import WebSocket from 'ws';
import { expect, it, vi } from 'vitest';
import { gatewayAloneSuite, greetedAgent } from '../support/gateway-alone.js';

const FLOODER = 'FLOD000000000010';
const VICTIM = 'FLOD000000000020';
let user = 0;
const alone = gatewayAloneSuite({
  register: async (store) => {
    user = await store.ensureUser('flood');
    await store.upsertBranch(user, FLOODER, 'agt_flood_1', 'flooder');
    await store.upsertBranch(user, VICTIM, 'agt_flood_2', 'victim');
  },
});

/** An agent connected and welcomed. */
async function agent(token: string, licenseKey: string): Promise<WebSocket> {
  const ws = await greetedAgent(alone().wsUrl, token, { licenseKey });
  return ws;
}

const beat = (jobsRunning: number) => JSON.stringify({ type: 'heartbeat', sentAt: new Date().toISOString(), posDatabase: 'ok', jobsRunning, lastError: null });

it("keeps each branch's latest heartbeat, not every beat of a flood, and writes the others' as soon", async () => {
  const flooder = await agent('agt_flood_1', FLOODER);
  const BEATS = 40_000;
  for (let i = 0; i < BEATS; i++) flooder.send(beat(i % 7));
  await new Promise<void>((resolve, reject) => flooder.send(beat(1234), (error) => (error ? reject(error) : resolve())));
  const victim = await agent('agt_flood_2', VICTIM);
  const started = Date.now();
  await vi.waitFor(
    async () => {
      const [flood, other] = await Promise.all([alone().store.fleet.detail(user, FLOODER), alone().store.fleet.detail(user, VICTIM)]);
      expect(flood).toMatchObject({ online: true, jobsRunning: 1234 });
      expect(other).toMatchObject({ online: true, jobsRunning: 0 });
    },
    { timeout: 20_000, interval: 50 },
  );
  const elapsed = Date.now() - started;
  flooder.close();
  victim.close();
  expect(elapsed).toBeLessThan(2_000);
});
