/**
 * The job log is written in batches of every branch's jobs together. What a branch's agent says
 * of a job (its worker id, a failure's code) is recorded whatever it holds: text PostgreSQL
 * refuses (NUL) from one compromised branch server made the whole batch fail, and other users'
 * branches lost their jobs from the fleet's last 24 hours. Real gateway, store and HTTP; raw
 * WebSocket agents with real tokens answer the jobs.
 */
import WebSocket from 'ws';
import { expect, it, vi } from 'vitest';
import { gatewayAloneSuite, greetedAgent } from '../support/gateway-alone.js';

const ATTACKER = 'JLOG000000000010';
const VICTIM = 'JLOG000000000020';
let victim = 0;
const alone = gatewayAloneSuite({
  register: async (store) => {
    const attacker = await store.ensureUser('jlog attacker');
    await store.upsertBranch(attacker, ATTACKER, 'agt_jlog_1', 'attacker');
    await store.addApiKey(attacker, 'jlog-attacker-key');
    victim = await store.ensureUser('jlog victim');
    await store.upsertBranch(victim, VICTIM, 'agt_jlog_2', 'victim');
    await store.addApiKey(victim, 'jlog-victim-key');
  },
});

/** An agent that answers every job with `answer`. */
async function agent(token: string, licenseKey: string, workerId: string, answer: object): Promise<WebSocket> {
  const ws = await greetedAgent(alone().wsUrl, token, { licenseKey, workerId });
  ws.on('message', (raw: Buffer) => {
    const message = JSON.parse(raw.toString()) as { type: string; jobId: string };
    if (message.type === 'job') ws.send(JSON.stringify({ type: 'result', jobId: message.jobId, ...answer }));
  });
  return ws;
}

it("logs another branch's jobs when a branch's agent answers with text the store refuses", async () => {
  const bad = await agent('agt_jlog_1', ATTACKER, 'w\u0000', { ok: false, error: { code: 'boom\u0000', message: 'no' } });
  const good = await agent('agt_jlog_2', VICTIM, 'w', { ok: true, data: [] });
  const http = alone().wsUrl.replace(/^ws/, 'http');
  const get = (licenseKey: string, key: string) => fetch(`${http}/estaciones/${licenseKey}`, { headers: { 'x-api-key': key } });
  // Both in the job log's one batch.
  const answers = await Promise.all([get(ATTACKER, 'jlog-attacker-key'), get(VICTIM, 'jlog-victim-key')]);
  expect(answers.map((a) => a.status)).not.toContain(401);
  await vi.waitFor(async () => expect((await alone().store.fleet.detail(victim, VICTIM))!.last24h.jobs).toBe(1), { timeout: 3_000 });
  bad.close();
  good.close();
});
