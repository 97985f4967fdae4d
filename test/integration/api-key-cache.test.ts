/** The store's cache of API-key lookups is bounded: the least recently used entries go first. */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GatewayStore } from '../../src/gateway/store.js';
import { newGatewayDatabase } from '../support/databases.js';

let store: GatewayStore;
beforeAll(async () => {
  store = new GatewayStore(await newGatewayDatabase(), { apiKeyCacheSize: 100 });
});
afterAll(async () => {
  await store?.close();
});

it('forgets a cached key once as many other keys as it holds were looked up after it', async () => {
  const user = await store.ensureUser('cache');
  await store.addApiKey(user, 'key_cached-then-crowded-out');
  expect(await store.userForApiKey('key_cached-then-crowded-out')).toBe(user);
  // Revoked behind the store's back (no announcement): only a new read sees it.
  await sql`update gw_api_keys set revoked_at = now() where user_id = ${user}`.execute(store.db);
  expect(await store.userForApiKey('key_cached-then-crowded-out')).toBe(user);

  for (let i = 0; i < 99; i++) expect(await store.userForApiKey(`key_unknown-${i}`)).toBeNull();
  // 100 entries: the key is still held.
  expect(await store.userForApiKey('key_cached-then-crowded-out')).toBe(user);
  for (let i = 99; i < 199; i++) expect(await store.userForApiKey(`key_unknown-${i}`)).toBeNull();
  expect(await store.userForApiKey('key_cached-then-crowded-out')).toBeNull();
});
