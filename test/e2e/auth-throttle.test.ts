/**
 * Failed authentications are throttled per client address: past the limit an address gets 429
 * rate_limited with Retry-After until its window ends, while a valid key keeps working from it.
 * (The window's end and the bound on tracked addresses: test/unit/failed-auth-throttle.test.ts.)
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_KEY, BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';

const WINDOW_SECONDS = 60;
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ gateway: { failedAuthLimit: { maxFailures: 5, windowSeconds: WINDOW_SECONDS, trackedAddresses: 100 } } });
});
afterAll(async () => {
  await stack?.stop();
});

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
