/**
 * The rollout driver records a branch's upgrade steps in the order its agent reported them, on a
 * real gateway store. Each step is a transaction of its own; the first one is held here before it
 * reaches the store (as a slow pool connection would), and the second must not overtake it: a
 * branch shown `downloading` while it installs was a console test's flake in CI. A new rollout's
 * offer the store fails is logged: the rollout was created, and the agent's next hello offers it.
 */
import { createHash, randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RolloutDriver } from '../../src/gateway/fleet/rollout-driver.js';
import { AgentHub } from '../../src/gateway/hub.js';
import { GatewayStore } from '../../src/gateway/store.js';
import type { UpgradeMessage } from '../../src/protocol/messages.js';
import { rolloutCreate } from '../../src/protocol/rollouts.js';
import { newGatewayDatabase } from '../support/databases.js';
import { until } from '../support/until.js';

const BRANCH = 'ORDR000000000001';
const log = pino({ level: 'silent' });
let store: GatewayStore;
let hub: AgentHub;

beforeAll(async () => {
  store = new GatewayStore(await newGatewayDatabase());
  hub = new AgentHub({ store, log, jobTimeoutMs: 5_000 });
});
afterAll(async () => {
  await hub?.close();
  await store?.close();
});

it("records a branch's steps in the order its agent sent them, though the first reaches the store last", async () => {
  const user = await store.ensureUser('rollout order');
  await store.upsertBranch(user, BRANCH, `agt_${randomUUID()}`, 'Centro');
  const rollout = await store.rollouts.create(user, rolloutCreate.parse({ version: '9.0.0', licenseKeys: [BRANCH], maxFallasPorcentaje: 100 }), [BRANCH]);

  const record = store.rollouts.progress.bind(store.rollouts);
  let letDownloadingThrough!: () => void;
  const downloadingHeld = new Promise<void>((resolve) => (letDownloadingThrough = resolve));
  const recorded: string[] = [];
  store.rollouts.progress = async (rolloutId, licenseKey, state, reason) => {
    if (state === 'downloading') await downloadingHeld;
    await record(rolloutId, licenseKey, state, reason);
    recorded.push(state);
  };

  const driver = new RolloutDriver(store, hub, log);
  driver.progress(BRANCH, { type: 'upgrade', rolloutId: rollout.id, state: 'downloading', reason: null });
  driver.progress(BRANCH, { type: 'upgrade', rolloutId: rollout.id, state: 'installing', reason: null });
  await new Promise((resolve) => setTimeout(resolve, 200));
  // The later step waits for the earlier one.
  expect(recorded).toEqual([]);
  letDownloadingThrough();
  await until(() => recorded.length === 2, 5_000);
  expect(recorded).toEqual(['downloading', 'installing']);
  expect((await store.rollouts.get(user, rollout.id))!.branches).toMatchObject([{ licenseKey: BRANCH, state: 'installing' }]);
});

it("logs an offer the store fails, without failing the rollout's start; the agent's next hello is offered it", async () => {
  const user = await store.ensureUser('rollout offer fails');
  const branch = 'ORDR000000000002';
  await store.upsertBranch(user, branch, `agt_${randomUUID()}`, 'Norte');
  const tarball = Buffer.from('release 9.0.1');
  const sha256 = createHash('sha256').update(tarball).digest('hex');
  await store.releases.add(
    { version: '9.0.1', platform: 'linux', sha256, signature: 'signed' },
    (async function* () {
      yield tarball;
    })(),
  );
  const rollout = await store.rollouts.create(user, rolloutCreate.parse({ version: '9.0.1', licenseKeys: [branch], maxFallasPorcentaje: 100 }), [branch]);
  const warnings: { msg: string; branches: number }[] = [];
  const driver = new RolloutDriver(store, hub, pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) }));
  const activeFor = store.rollouts.activeFor.bind(store.rollouts);
  const agentFor = hub.agentFor.bind(hub);
  const sendUpgrade = hub.sendUpgrade.bind(hub);
  const offered: UpgradeMessage[] = [];
  store.rollouts.activeFor = () => Promise.reject(new Error('store down'));
  hub.agentFor = () => ({ workerId: 'w', agentVersion: '1.0.0', posVersion: null, connectedAt: new Date(), platform: 'linux' });
  hub.sendUpgrade = (_licenseKey, message) => offered.push(message) > 0;
  try {
    await expect(driver.started([branch])).resolves.toBeUndefined();
    expect(warnings).toMatchObject([{ msg: 'rollout not offered; each agent is offered it at its next hello', branches: 1 }]);
    expect(offered).toEqual([]);
    store.rollouts.activeFor = activeFor;
    driver.connected(branch, 'linux');
    await until(() => offered.length === 1, 5_000);
  } finally {
    store.rollouts.activeFor = activeFor;
    hub.agentFor = agentFor;
    hub.sendUpgrade = sendUpgrade;
  }
  expect(offered[0]).toMatchObject({ rolloutId: rollout.id, release: { version: '9.0.1', platform: 'linux', sha256 } });
});
