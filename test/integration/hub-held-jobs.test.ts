/**
 * The hub's side of held commits: an agent whose hello lists `heldCommit` gets a keyed job before
 * its key is claimed, then the verdict; any other agent gets the job only once the claim is won,
 * so an older agent never commits a write whose key was not the gateway's. Real gateway, real
 * WebSocket clients speaking the protocol.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { ClaimLostError } from '../../src/gateway/hub.js';
import { AGENT_PATH, HELD_COMMIT, frameJson } from '../../src/protocol/messages.js';
import { gatewayAloneSuite } from '../support/gateway-alone.js';
import { until } from '../support/until.js';

const HOLDING = 'HOLD000000000010';
const OLDER = 'HOLD000000000020';
const alone = gatewayAloneSuite({
  register: async (store) => {
    const user = await store.ensureUser('holds');
    await store.upsertBranch(user, HOLDING, 'agt_holds_1', 'holding');
    await store.upsertBranch(user, OLDER, 'agt_holds_2', 'older');
  },
});

/** A connected agent that records what the gateway sends it. */
async function agent(licenseKey: string, token: string, features?: string[]): Promise<{ ws: WebSocket; received: Array<Record<string, unknown>> }> {
  const ws = new WebSocket(new URL(AGENT_PATH, alone().wsUrl), { headers: { authorization: `Bearer ${token}` } });
  const received: Array<Record<string, unknown>> = [];
  await new Promise((resolve) => ws.once('open', resolve));
  const welcome = new Promise((resolve) => ws.once('message', resolve));
  ws.send(JSON.stringify({ type: 'hello', licenseKey, workerId: licenseKey, agentVersion: 'test', posVersion: null, ...(features ? { features } : {}) }));
  await welcome;
  ws.on('message', (raw) => received.push(frameJson(raw) as Record<string, unknown>));
  return { ws, received };
}

function claim(): { promise: Promise<boolean>; decide: (won: boolean) => void } {
  let decide!: (won: boolean) => void;
  const promise = new Promise<boolean>((resolve) => (decide = resolve));
  return { promise, decide };
}

const idempotency = { scope: 'user:1', key: 'k', fingerprint: 'f' };
/** Long enough for a frame the gateway should not have sent to have arrived. */
const settle = () => sleep(150);
const answer = (ws: WebSocket, jobId: unknown) => ws.send(JSON.stringify({ type: 'result', jobId, ok: true, data: { done: true } }));

describe('an agent that holds commits', () => {
  it('gets the job before the claim, marked hold, and the verdict after it', async () => {
    const a = await agent(HOLDING, 'agt_holds_1', [HELD_COMMIT]);
    const c = claim();
    const dispatched = alone().gateway.hub.dispatch({ licenseKey: HOLDING, op: 'orders.addLines', params: {}, idempotency, claim: c.promise });
    await until(() => a.received.length === 1);
    expect(a.received).toEqual([expect.objectContaining({ type: 'job', hold: true })]);
    const jobId = a.received[0]!.jobId;
    c.decide(true);
    await until(() => a.received.length === 2);
    expect(a.received[1]).toEqual({ type: 'claim', jobId, won: true });
    answer(a.ws, jobId);
    expect(await dispatched).toMatchObject({ ok: true, data: { done: true } });
    a.ws.close();
  });

  it('is told a lost claim, and the request fails without waiting for its answer', async () => {
    const a = await agent(HOLDING, 'agt_holds_1', [HELD_COMMIT]);
    const c = claim();
    const dispatched = alone().gateway.hub.dispatch({ licenseKey: HOLDING, op: 'orders.addLines', params: {}, idempotency, claim: c.promise });
    await until(() => a.received.length === 1);
    c.decide(false);
    await expect(dispatched).rejects.toBeInstanceOf(ClaimLostError);
    await until(() => a.received.length === 2);
    expect(a.received.map((m) => m.type)).toEqual(['job', 'claim']);
    expect(a.received[1]).toMatchObject({ won: false });
    a.ws.close();
  });
});

describe('an agent whose hello does not list heldCommit', () => {
  it('gets the job only once the claim is won, without hold', async () => {
    const a = await agent(OLDER, 'agt_holds_2');
    const c = claim();
    const dispatched = alone().gateway.hub.dispatch({ licenseKey: OLDER, op: 'orders.addLines', params: {}, idempotency, claim: c.promise });
    await settle();
    expect(a.received).toEqual([]);
    c.decide(true);
    await until(() => a.received.length === 1);
    expect(a.received[0]).toMatchObject({ type: 'job', idempotency });
    expect(a.received[0]).not.toHaveProperty('hold');
    answer(a.ws, a.received[0]!.jobId);
    expect(await dispatched).toMatchObject({ ok: true });
    a.ws.close();
  });

  it('never gets a job whose claim is lost', async () => {
    const a = await agent(OLDER, 'agt_holds_2');
    const c = claim();
    const dispatched = alone().gateway.hub.dispatch({ licenseKey: OLDER, op: 'orders.addLines', params: {}, idempotency, claim: c.promise });
    c.decide(false);
    await expect(dispatched).rejects.toBeInstanceOf(ClaimLostError);
    await settle();
    expect(a.received).toEqual([]);
    a.ws.close();
  });
});
