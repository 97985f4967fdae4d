/**
 * A compromised branch server holds its agent's token and can reconnect hundreds of times a
 * second. Each hello, and each connection it replaced, was a fleet status write queued before
 * every other branch's: the queue grew for as long as the flood lasted. A branch may say hello
 * to a gateway 10 times at once, then once a second; a hello past that is closed with 4429 and
 * not recorded. Real gateway and store, raw WebSocket agents with real tokens.
 */
import WebSocket from 'ws';
import { expect, it, vi } from 'vitest';
import { AGENT_PATH, CLOSE } from '../../src/protocol/messages.js';
import { gatewayAloneSuite } from '../support/gateway-alone.js';

const FLOODER = 'HFLD000000000010';
const VICTIM = 'HFLD000000000020';
let user = 0;
const alone = gatewayAloneSuite({
  register: async (store) => {
    user = await store.ensureUser('hello flood');
    await store.upsertBranch(user, FLOODER, 'agt_hfld_1', 'flooder');
    await store.upsertBranch(user, VICTIM, 'agt_hfld_2', 'victim');
  },
});

/** Says hello; the socket, welcomed or not, and the close code when it was refused. */
async function hello(token: string, licenseKey: string): Promise<{ ws: WebSocket; refused?: number }> {
  const ws = new WebSocket(new URL(AGENT_PATH, alone().wsUrl), { headers: { authorization: `Bearer ${token}` } });
  ws.on('error', () => undefined);
  await new Promise((resolve) => ws.once('open', resolve));
  const answered = new Promise<number | undefined>((resolve) => {
    ws.once('message', () => resolve(undefined));
    ws.once('close', (code) => resolve(code));
  });
  ws.send(JSON.stringify({ type: 'hello', licenseKey, workerId: 'w', agentVersion: '1.0.0', posVersion: null }));
  const refused = await answered;
  return refused === undefined ? { ws } : { ws, refused };
}

it("refuses a branch's hellos past 10 at once and one a second, so the others' are written at once", async () => {
  const codes: Array<number | undefined> = [];
  const until = Date.now() + 3_000;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (Date.now() < until) {
        const { ws, refused } = await hello('agt_hfld_1', FLOODER);
        codes.push(refused);
        ws.terminate();
      }
    }),
  );
  const { ws: victim } = await hello('agt_hfld_2', VICTIM);
  const started = Date.now();
  await vi.waitFor(async () => expect(await alone().store.fleet.detail(user, VICTIM)).toMatchObject({ online: true }), { timeout: 20_000, interval: 20 });
  expect(Date.now() - started).toBeLessThan(1_000);
  const welcomed = codes.filter((c) => c === undefined).length;
  expect(welcomed).toBeGreaterThanOrEqual(10);
  expect(welcomed).toBeLessThanOrEqual(14);
  expect(new Set(codes.filter((c) => c !== undefined))).toEqual(new Set([CLOSE.tooManyHellos]));
  // The flooder's connections were recorded as welcomed: no more.
  expect((await alone().store.fleet.detail(user, FLOODER))!.last24h.connections.length).toBe(welcomed);
  victim.close();
});
