/**
 * Branch owners not cached are read together, one query for the lookups of one turn
 * (batched-lookup.ts): each caller still gets its own branch's owner, null for a branch nobody
 * registered, and a store that fails fails every lookup of the batch rather than leaving one waiting.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GatewayStore } from '../../src/gateway/store.js';
import { newGatewayDatabase } from '../support/databases.js';

let store: GatewayStore;
beforeAll(async () => {
  store = new GatewayStore(await newGatewayDatabase());
  await store.migrate();
});
afterAll(async () => {
  await store?.close();
});

it('answers lookups asked together each with its own branch, unknown ones null', async () => {
  const alice = await store.ensureUser('owners-alice');
  const bob = await store.ensureUser('owners-bob');
  const owners = new Map<string, number | null>();
  for (let i = 0; i < 40; i++) {
    const licenseKey = `OWNR${String(i).padStart(12, '0')}`;
    const owner = i % 3 === 0 ? bob : alice;
    await store.upsertBranch(owner, licenseKey, `agt_owner_${i}`, licenseKey);
    owners.set(licenseKey, owner);
  }
  for (let i = 0; i < 5; i++) owners.set(`NONE${String(i).padStart(12, '0')}`, null);
  // Each branch asked twice in the same turn, in an order unlike the table's.
  const asked = [...owners.keys(), ...[...owners.keys()].reverse()];
  const answers = await Promise.all(asked.map((licenseKey) => store.branchOwner(licenseKey)));
  expect(answers).toEqual(asked.map((licenseKey) => owners.get(licenseKey)));
  // Cached now: the same answers without the store.
  expect(await store.branchOwner('OWNR000000000003')).toBe(bob);
});

it('fails every lookup of a batch the store could not answer', async () => {
  const broken = new GatewayStore(store.url.replace(/\/[^/?]+(\?|$)/, '/no_such_database$1'));
  try {
    const lookups = ['FAIL000000000001', 'FAIL000000000002', 'FAIL000000000001'].map((licenseKey) => broken.branchOwner(licenseKey));
    const outcomes = await Promise.allSettled(lookups);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
  } finally {
    await broken.close();
  }
});
