/**
 * Failed authentications are throttled per client address and over all addresses: past a limit
 * an address gets 429 rate_limited with Retry-After until its window ends, while a valid key keeps
 * working from it. X-Forwarded-For names the address only when it comes from a configured proxy
 * (here the test itself, on loopback); a gateway that trusts none counts the connection's address,
 * whatever the header claims. (The window's end and the bound on tracked addresses:
 * test/unit/failed-auth-throttle.test.ts.)
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { API_KEY, BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';

const WINDOW_SECONDS = 60;
const limit = { maxFailures: 5, maxFailuresAllAddresses: 50, windowSeconds: WINDOW_SECONDS, trackedAddresses: 100 };
let stack: TestStack;
const gateways: Gateway[] = [];
beforeAll(async () => {
  stack = await startTestStack({ gateway: { failedAuthLimit: limit, trustProxy: ['127.0.0.1'] } });
});
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.app.close()));
  await stack?.stop();
});

/** Another gateway on the stack's store, with a throttle of its own: its URL. */
async function gatewayTrusting(trustProxy: string[] | undefined): Promise<string> {
  const gateway = await buildGateway({ store: stack.store, log: pino({ level: 'silent' }), webhookKey: randomBytes(32), failedAuthLimit: limit, trustProxy });
  gateways.push(gateway);
  return gateway.app.listen({ host: '127.0.0.1', port: 0 });
}

/** GET /print/printers (no agent needed) from `url` with this key, claiming to come from `forwardedFor`: the status. */
async function statusOf(url: string, key: string, forwardedFor: string): Promise<number> {
  const res = await fetch(`${url}/print/printers`, { headers: { 'x-api-key': key, 'x-forwarded-for': forwardedFor } });
  await res.arrayBuffer();
  return res.status;
}

/** A different address for each i (in 198.18.0.0/15, kept for tests), as a client rotating its claim sends. */
const claimed = (i: number) => `198.18.${i >> 8}.${i & 255}`;

const unknownKey = (i: number) => stack.api('GET', `/estaciones/${BRANCH}`, { key: `unknown-key-${i}` });

function expectThrottled(res: ApiResponse): void {
  expect(res.status, res.text).toBe(429);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status: 429, code: 'rate_limited' });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
}

it('answers 401 up to the limit, then 429 with Retry-After, and never to a valid key', async () => {
  for (let i = 0; i < 5; i++) expect((await unknownKey(i)).status).toBe(401);
  expectThrottled(await unknownKey(5));
  expectThrottled(await stack.api('GET', `/estaciones/${BRANCH}`, { key: null }));

  // The same address with a valid key: served, every time, and it does not lift the throttle.
  for (let i = 0; i < 3; i++) expect((await stack.api('GET', `/estaciones/${BRANCH}`, { key: API_KEY })).status).toBe(200);
  expectThrottled(await unknownKey(6));

  // Another client address (as the trusted proxy reports it) has its own count.
  expect((await stack.api('GET', `/estaciones/${BRANCH}`, { key: 'unknown-key-7', headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(401);
});

it('keeps a burst of 1,000 unknown keys from one address to the limit', async () => {
  const address = { 'x-forwarded-for': '198.51.100.4' };
  const statuses = await Promise.all(
    Array.from({ length: 1000 }, (_, i) => stack.api('GET', `/estaciones/${BRANCH}`, { key: `flood-${i}`, headers: address }).then((r) => r.status)),
  );
  expect(statuses.filter((s) => s === 401)).toHaveLength(5);
  expect(statuses.filter((s) => s === 429)).toHaveLength(995);
});

describe('X-Forwarded-For', () => {
  it('names no address for a gateway that trusts no proxy (the default): 2,000 rotating claims are one address', async () => {
    const url = await gatewayTrusting(undefined);
    const statuses = await Promise.all(Array.from({ length: 2000 }, (_, i) => statusOf(url, `rotating-${i}`, claimed(i))));
    expect(statuses.filter((s) => s === 401)).toHaveLength(limit.maxFailures);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2000 - limit.maxFailures);
    expect(await statusOf(url, API_KEY, claimed(1))).toBe(200);
  }, 60_000);

  it('through a trusted proxy, counts each address and holds them all past the limit over all addresses', async () => {
    const url = await gatewayTrusting(['127.0.0.1']);
    const statuses = await Promise.all(Array.from({ length: 500 }, (_, i) => statusOf(url, `spread-${i}`, claimed(i))));
    expect(statuses.filter((s) => s === 401)).toHaveLength(limit.maxFailuresAllAddresses);
    expect(statuses.filter((s) => s === 429)).toHaveLength(500 - limit.maxFailuresAllAddresses);
    // A new address is held as well; a valid key never is.
    expect(await statusOf(url, 'spread-new', claimed(999))).toBe(429);
    expect(await statusOf(url, API_KEY, claimed(999))).toBe(200);
  });
});
