/**
 * An agent reports a few steps of an upgrade. A compromised branch server holds its agent's token
 * and can send reports by the thousand a second: each was queued, a transaction in the branch's
 * turn, for as long as the flood lasted (memory, and the store kept busy long after). Past a
 * few waiting, a branch's reports are dropped. Real gateway and store, a raw WebSocket agent
 * with a real token.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { rolloutCreate } from '../../src/protocol/rollouts.js';
import { gatewayAloneSuite, greetedAgent } from '../support/gateway-alone.js';

const BRANCH = 'UPFL000000000010';
let user = 0;
const alone = gatewayAloneSuite({
  register: async (store) => {
    user = await store.ensureUser('upgrade flood');
    await store.upsertBranch(user, BRANCH, 'agt_upfl_1', 'flooder');
  },
});

const updatedAt = async (rolloutId: string) =>
  (
    await alone().store.db.selectFrom('gw_rollout_targets').select('updated_at').where('rollout_id', '=', rolloutId).executeTakeFirstOrThrow()
  ).updated_at.getTime();

it("drops a branch's upgrade reports past a few waiting, so a flood of them ends with it", async () => {
  const ws = await greetedAgent(alone().wsUrl, 'agt_upfl_1', { licenseKey: BRANCH });
  const { id } = await alone().store.rollouts.create(user, rolloutCreate.parse({ version: '2.0.0' }), [BRANCH]);
  const report = JSON.stringify({ type: 'upgrade', rolloutId: id, state: 'downloading', reason: null });
  for (let i = 0; i < 20_000; i++) ws.send(report);
  await new Promise<void>((resolve, reject) => ws.send(report, (error) => (error ? reject(error) : resolve())));
  // Sent, and read by the gateway; then whatever it queued is written within a second.
  await sleep(1_500);
  const first = await updatedAt(id);
  await sleep(1_000);
  expect(await updatedAt(id)).toBe(first);
  expect(await alone().store.rollouts.get(user, id)).toMatchObject({ branches: [{ state: 'downloading' }] });
  ws.close();
});
