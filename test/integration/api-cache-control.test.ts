/**
 * The API's answers are for the key that asked; caches do not take X-Api-Key for a credential as
 * they do Authorization, so every answer says `no-store`: a shared cache in front of the gateway
 * must not hand one user's fleet, or a new webhook's secret, to another request for the URL.
 * Real gateway, store and HTTP.
 */
import { expect, it } from 'vitest';
import { gatewayAloneSuite } from '../support/gateway-alone.js';

const alone = gatewayAloneSuite({
  register: async (store) => {
    const user = await store.ensureUser('no store');
    await store.upsertBranch(user, 'NSTO000000000010', 'agt_nsto_1', 'no store');
    await store.addApiKey(user, 'nsto-key', '', ['read', 'write', 'fleet']);
  },
});

it('answers every API request with cache-control no-store, problems included', async () => {
  const http = alone().wsUrl.replace(/^ws/, 'http');
  const key = { 'x-api-key': 'nsto-key' };
  const answers = [
    await fetch(`${http}/sucursales`, { headers: key }),
    await fetch(`${http}/sucursales/NSTO000000000010`, { headers: key }),
    await fetch(`${http}/webhooks`, { headers: key }),
    await fetch(`${http}/sucursales`),
    await fetch(`${http}/sucursales/NOPE000000000010`, { headers: key }),
  ];
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 401, 403]);
  for (const answer of answers) expect(answer.headers.get('cache-control'), answer.url).toBe('no-store');
});
