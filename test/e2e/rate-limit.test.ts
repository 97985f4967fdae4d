/** The per-key rate limit: a burst is allowed, then 429 rate_limited with Retry-After and RateLimit-* headers. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_KEY, BRANCH, OTHER_API_KEY, OTHER_USERS_BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ gateway: { rateLimit: { perSecond: 1, burst: 3 } } });
});
afterAll(async () => {
  await stack?.stop();
});

it('lets a burst through, then answers 429 with Retry-After, per key', async () => {
  const statuses: number[] = [];
  let limited: Awaited<ReturnType<typeof stack.api>> | undefined;
  for (let i = 0; i < 4; i++) {
    const res = await stack.api('GET', `/estaciones/${BRANCH}`, { key: API_KEY });
    statuses.push(res.status);
    if (res.status === 429) limited = res;
  }
  expect(statuses).toEqual([200, 200, 200, 429]);
  expect(limited!.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(limited!.body).toMatchObject({ status: 429, code: 'rate_limited' });
  expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(limited!.headers.get('ratelimit-limit')).toBe('3');
  expect(limited!.headers.get('ratelimit-remaining')).toBe('0');
  // Another key has its own budget.
  expect((await stack.api('GET', `/estaciones/${OTHER_USERS_BRANCH}`, { key: OTHER_API_KEY })).status).toBe(200);
});
