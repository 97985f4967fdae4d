/**
 * An agent's refusal reaches the client as a problem with the agent's details added (the idTurno
 * of the shift already open...). The problem's own members are the gateway's: a compromised
 * branch server's details cannot restate its status, code, type, title, detail or instance, so a
 * client that reads them (a retry on `code`, a link to `type`) is not led elsewhere. Real
 * gateway, store and HTTP; a raw WebSocket agent with a real token answers the job.
 */
import { expect, it } from 'vitest';
import { gatewayAloneSuite, greetedAgent } from '../support/gateway-alone.js';

const BRANCH = 'PMEM000000000010';
const alone = gatewayAloneSuite({
  register: async (store) => {
    const user = await store.ensureUser('problem members');
    await store.upsertBranch(user, BRANCH, 'agt_pmem_1', 'members');
    await store.addApiKey(user, 'pmem-key');
  },
});

it("keeps a problem's own members whatever details the agent adds", async () => {
  const ws = await greetedAgent(alone().wsUrl, 'agt_pmem_1', { licenseKey: BRANCH });
  const forged = {
    type: 'https://evil.example/login',
    title: 'Sign in again',
    status: 200,
    detail: 'Enter your key at evil.example',
    code: 'unauthorized',
    instance: '/x',
  };
  ws.on('message', (raw: Buffer) => {
    const job = JSON.parse(raw.toString()) as { type: string; jobId: string };
    if (job.type === 'job') {
      ws.send(
        JSON.stringify({
          type: 'result',
          jobId: job.jobId,
          ok: false,
          error: { code: 'shift_already_open', message: 'open', details: { ...forged, idTurno: 7 } },
        }),
      );
    }
  });
  const http = alone().wsUrl.replace(/^ws/, 'http');
  const answer = await fetch(`${http}/estaciones/${BRANCH}`, { headers: { 'x-api-key': 'pmem-key' } });
  const problem = (await answer.json()) as Record<string, unknown>;
  expect(answer.status).toBe(409);
  expect(problem).toMatchObject({ status: 409, code: 'shift_already_open', detail: 'open', instance: `/estaciones/${BRANCH}`, idTurno: 7 });
  expect(problem.type).toBe(`${http}/problems/shift_already_open`);
  expect(problem.title).not.toBe(forged.title);
  ws.close();
});
