/**
 * The gateway's /readyz (docs/operations.md, "Health and doctor"): 200 with `agentsConnected`
 * while its store answers, 503 `{ status: "store_unavailable" }` when it does not. The store is
 * made to stop answering for real: its database refuses new connections and the gateway's
 * pooled ones are cut, as when the PostgreSQL server goes away.
 */
import { expect, it } from 'vitest';
import { cluster } from '../support/databases.js';
import { gatewayAloneSuite } from '../support/gateway-alone.js';

const alone = gatewayAloneSuite();

const readyz = async () => {
  const res = await fetch(`${alone().wsUrl.replace(/^ws/, 'http')}/readyz`);
  return { status: res.status, body: await res.json() };
};

/** Takes the store's database away from every client (or gives it back). */
async function storeAnswers(answers: boolean): Promise<void> {
  const database = new URL(alone().store.url).pathname.slice(1);
  await cluster().admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS ${answers}`);
  if (!answers) await cluster().admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`);
}

it('answers 200 while its store answers, and 503 store_unavailable when it does not', async () => {
  expect(await readyz()).toEqual({ status: 200, body: { status: 'ready', agentsConnected: 0 } });
  await storeAnswers(false);
  try {
    // Every request asks the store again: no answer is remembered from before the outage.
    for (let i = 0; i < 3; i++) expect(await readyz()).toEqual({ status: 503, body: { status: 'store_unavailable' } });
  } finally {
    await storeAnswers(true);
  }
  expect(await readyz()).toEqual({ status: 200, body: { status: 'ready', agentsConnected: 0 } });
});
