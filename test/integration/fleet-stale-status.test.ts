/**
 * A branch whose agent has not been heard from for 90 s (by the store's clock) shows offline,
 * whatever its status row says: the gateway that held it may have died without writing that it
 * left (docs/operations.md).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GatewayStore } from '../../src/gateway/store.js';
import { fleetListQuery } from '../../src/protocol/fleet.js';
import { storeNowPlus } from '../../src/gateway/store-time.js';
import { newGatewayDatabase } from '../support/databases.js';

const BRANCH = 'STAL000000000001';
let store: GatewayStore;

beforeAll(async () => {
  store = new GatewayStore(await newGatewayDatabase());
});
afterAll(async () => {
  await store?.close();
});

it('shows a branch online for 90 s after it was last heard from, offline after, in the list, its filter and its detail', async () => {
  const user = await store.ensureUser('stale');
  await store.upsertBranch(user, BRANCH, `agt_${randomUUID()}`, 'Centro');
  const lastSeen = new Date('2026-03-01T12:00:00Z');
  const heardAgo = (seconds: number) =>
    store.db
      .updateTable('gw_agent_status')
      .set({ last_seen: storeNowPlus(-seconds * 1000) })
      .where('license_key', '=', BRANCH)
      .execute();
  await store.db
    .insertInto('gw_agent_status')
    .values({
      license_key: BRANCH,
      online: true,
      worker_id: 'w',
      agent_version: '1.0.0',
      node_version: null,
      os: null,
      pos_version: null,
      pos_state: null,
      agent_started_at: null,
      connected_since: lastSeen,
      last_seen: lastSeen,
      jobs_running: 0,
      clock_offset_ms: null,
    })
    .execute();
  const listed = async (filter: Record<string, string> = {}) =>
    (await store.fleet.list(user, fleetListQuery.parse(filter))).data.map((b) => [b.licenseKey, b.online]);

  await heardAgo(89);
  expect(await listed()).toEqual([[BRANCH, true]]);
  expect(await listed({ online: 'false' })).toEqual([]);
  expect((await store.fleet.detail(user, BRANCH))?.online).toBe(true);
  await heardAgo(91);
  expect(await listed()).toEqual([[BRANCH, false]]);
  expect(await listed({ online: 'false' })).toEqual([[BRANCH, false]]);
  expect((await store.fleet.detail(user, BRANCH))?.online).toBe(false);
});
