/**
 * Webhook deliveries on a real gateway store to real receivers: a receiver that takes its time
 * holds one delivery slot, not the other webhooks' next deliveries, and each webhook still gets a
 * branch's events in their order. Before, deliveries went in batches and the next batch waited
 * for the slowest attempt of the last. And one user's receivers that hold every attempt they get
 * take at most PER_USER_IN_FLIGHT of them: another user's delivery still goes out at once.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PER_USER_IN_FLIGHT } from '../../src/gateway/event-store.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { WebhookDelivery } from '../../src/gateway/webhook-delivery.js';
import { newWebhookSecret, sealSecret } from '../../src/gateway/webhook-secrets.js';
import type { BranchEvent } from '../../src/protocol/events.js';
import { newGatewayDatabase } from '../support/databases.js';
import { until } from '../support/until.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const BRANCH = 'PIPE000000000001';
const key = Buffer.alloc(32, 7);
let store: GatewayStore;
let delivery: WebhookDelivery;
let slow: WebhookReceiver;
let fast: WebhookReceiver;

beforeAll(async () => {
  store = new GatewayStore(await newGatewayDatabase());
  [slow, fast] = await Promise.all([WebhookReceiver.start(), WebhookReceiver.start()]);
  const user = await store.ensureUser('webhook pipeline');
  await store.upsertBranch(user, BRANCH, `agt_${randomUUID()}`, 'Centro');
  for (const { url } of [slow, fast]) await webhookFor(user, url);
  delivery = new WebhookDelivery({
    store,
    log: pino({ level: 'silent' }),
    webhookKey: key,
    policy: { allowHttp: true, allowLoopback: true, allowPrivate: false },
    timeoutMs: 5_000,
    pollMs: 50,
  });
  delivery.start();
});
afterAll(async () => {
  await delivery?.stop();
  await Promise.all([slow?.close(), fast?.close()]);
  await store?.close();
});

const webhookFor = (user: number, url: string) =>
  store.webhooks.create(user, { url, eventos: ['orden.abierta'], licenseKeys: null, secretSealed: sealSecret(key, newWebhookSecret()) });
const event = (n: number): BranchEvent => ({
  id: `pipe-${n}`,
  type: 'orden.abierta',
  licenseKey: BRANCH,
  timestamp: new Date().toISOString(),
  origin: 'pos',
  jobId: null,
  data: { folio: n },
});
const ids = (receiver: WebhookReceiver) => receiver.events().map((e: BranchEvent) => e.id);

it("delivers a webhook's events while another webhook's receiver holds its attempt, each in order", async () => {
  slow.delaysMs = [2_500];
  const started = Date.now();
  await store.events.append(BRANCH, [1, 2, 3].map(event));
  delivery.wake();
  await until(() => fast.received.length === 3, 5_000);
  expect(Date.now() - started).toBeLessThan(1_500);
  // The slow receiver has the first event and has not answered it: the second is not sent yet.
  expect(ids(slow)).toEqual(['pipe-1']);
  expect(ids(fast)).toEqual(['pipe-1', 'pipe-2', 'pipe-3']);
  await until(() => slow.received.length === 3, 10_000);
  expect(ids(slow)).toEqual(['pipe-1', 'pipe-2', 'pipe-3']);
  const delivered = async () => (await store.db.selectFrom('gw_deliveries').select('id').where('state', '=', 'delivered').execute()).length;
  await until(async () => (await delivered()) === 6, 5_000);
});

it("delivers a user's event at once while another user's receivers hold every attempt they can", async () => {
  const [noisy, quiet] = [await store.ensureUser('noisy tenant'), await store.ensureUser('quiet tenant')];
  await store.upsertBranch(noisy, 'PIPE000000000002', `agt_${randomUUID()}`, 'Ruidosa');
  await store.upsertBranch(quiet, 'PIPE000000000003', `agt_${randomUUID()}`, 'Tranquila');
  const [silent, quick] = await Promise.all([WebhookReceiver.start(), WebhookReceiver.start()]);
  try {
    silent.delaysMs = Array<number>(10).fill(10_000);
    for (let i = 0; i < 10; i++) await webhookFor(noisy, `${silent.url}?${i}`);
    await webhookFor(quiet, quick.url);
    await store.events.append('PIPE000000000002', [{ ...event(10), id: 'noisy-1', licenseKey: 'PIPE000000000002' }]);
    delivery.wake();
    await until(() => silent.received.length >= PER_USER_IN_FLIGHT, 5_000);
    const started = Date.now();
    await store.events.append('PIPE000000000003', [{ ...event(11), id: 'quiet-1', licenseKey: 'PIPE000000000003' }]);
    delivery.wake();
    await until(() => quick.received.length === 1, 5_000);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(silent.received).toHaveLength(PER_USER_IN_FLIGHT);
  } finally {
    await Promise.all([silent.close(), quick.close()]);
  }
});
