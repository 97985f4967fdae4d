/**
 * What an agent reports is recorded whatever it holds, since the fleet view is where a branch
 * that misbehaves is seen: a clock years off (a server whose battery died boots in 2000), text
 * no database can keep (NUL, a lone surrogate), times at the edge of what a timestamp holds.
 * Real gateway and store, raw WebSocket agents with real tokens.
 */
import WebSocket from 'ws';
import { expect, it, vi } from 'vitest';
import { rolloutCreate } from '../../src/protocol/rollouts.js';
import { gatewayAloneSuite, greetedAgent } from '../support/gateway-alone.js';

const BRANCHES = ['RPRT000000000010', 'RPRT000000000020', 'RPRT000000000030', 'RPRT000000000040'] as const;
let user = 0;
const alone = gatewayAloneSuite({
  register: async (store) => {
    user = await store.ensureUser('reports');
    for (const [i, key] of BRANCHES.entries()) await store.upsertBranch(user, key, `agt_reports_${i}`, `reports ${i}`);
  },
});

/** Connects the branch's agent and sends `messages` after its hello, once welcomed. */
async function agent(index: number, hello: object, ...messages: object[]): Promise<WebSocket> {
  const ws = await greetedAgent(alone().wsUrl, `agt_reports_${index}`, { licenseKey: BRANCHES[index]!, ...hello });
  for (const message of messages) ws.send(JSON.stringify(message));
  return ws;
}

const health = (sentAt: string, lastError: { message: string; at: string } | null = null) => ({ sentAt, posDatabase: 'ok', jobsRunning: 0, lastError });
const detail = (index: number) => alone().store.fleet.detail(user, BRANCHES[index]!);

it('shows a branch whose clock is years behind online, with its offset', async () => {
  const ws = await agent(0, { health: health('2000-01-01T00:00:00Z'), startedAt: '2000-01-01T00:00:00Z' });
  const behind = Date.parse('2000-01-01T00:00:00Z') - Date.now();
  await vi.waitFor(async () => expect(await detail(0)).toMatchObject({ online: true, agentVersion: '1.0.0' }), { timeout: 5_000 });
  expect(Math.abs((await detail(0))!.clockOffsetMs! - behind)).toBeLessThan(5_000);
  ws.send(JSON.stringify({ type: 'heartbeat', ...health('2000-01-01T00:00:01Z', { message: 'late', at: '2000-01-01T00:00:01Z' }) }));
  await vi.waitFor(async () => expect((await detail(0))!.lastError).toEqual({ message: 'late', at: '2000-01-01T00:00:01.000Z' }), { timeout: 5_000 });
  ws.close();
});

it('records text no database keeps with a replacement character instead', async () => {
  const bad = { workerId: 'w\u0000', agentVersion: '1.0\u0000', os: 'win32 \uD800 x64', nodeVersion: 'v20\uDFFF', posVersion: '11\u0000' };
  const ws = await agent(1, { ...bad, health: health(new Date().toISOString(), { message: 'bad\u0000byte', at: new Date().toISOString() }) });
  await vi.waitFor(async () => expect(await detail(1)).toMatchObject({ online: true }), { timeout: 5_000 });
  expect(await detail(1)).toMatchObject({
    workerId: 'w\uFFFD',
    agentVersion: '1.0\uFFFD',
    os: 'win32 \uFFFD x64',
    nodeVersion: 'v20\uFFFD',
    posVersion: '11\uFFFD',
    lastError: { message: 'bad\uFFFDbyte' },
  });
  ws.send(JSON.stringify({ type: 'heartbeat', ...health(new Date().toISOString(), { message: 'again\u0000', at: new Date().toISOString() }) }));
  await vi.waitFor(async () => expect((await detail(1))!.lastError!.message).toBe('again\uFFFD'), { timeout: 5_000 });
  ws.close();
});

it('records times at the edge of the calendar', async () => {
  const ws = await agent(2, {
    health: health(new Date().toISOString(), { message: 'first', at: '0000-01-01T00:00:00Z' }),
    startedAt: '0000-01-01T00:00:00+14:00',
  });
  await vi.waitFor(async () => expect(await detail(2)).toMatchObject({ online: true, lastError: { message: 'first' } }), { timeout: 5_000 });
  ws.send(JSON.stringify({ type: 'heartbeat', ...health(new Date().toISOString(), { message: 'last', at: '9999-12-31T23:59:59-14:00' }) }));
  await vi.waitFor(async () => expect((await detail(2))!.lastError!.message).toBe('last'), { timeout: 5_000 });
  ws.close();
});

it("records an upgrade's failure whatever its reason holds, so the rollout ends", async () => {
  const ws = await agent(3, {});
  const { id } = await alone().store.rollouts.create(user, rolloutCreate.parse({ version: '2.0.0' }), [BRANCHES[3]]);
  ws.send(JSON.stringify({ type: 'upgrade', rolloutId: id, state: 'failed', reason: 'installer said \u0000' }));
  await vi.waitFor(
    async () =>
      expect(await alone().store.rollouts.get(user, id)).toMatchObject({ state: 'done', branches: [{ state: 'failed', reason: 'installer said \uFFFD' }] }),
    {
      timeout: 5_000,
    },
  );
  ws.close();
});
