/** The failed-authentication throttle's windows, its limit over all addresses and its bound on tracked addresses. */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { FailedAuthThrottle } from '../../src/gateway/failed-auth-throttle.js';

const failTimes = (throttle: FailedAuthThrottle, address: string, n: number) => Array.from({ length: n }, () => throttle.fail(address));

it('lets maxFailures through, then asks for the rest of the window, and forgets the address when it ends', async () => {
  const throttle = new FailedAuthThrottle({ maxFailures: 3, maxFailuresAllAddresses: 100, windowSeconds: 1, trackedAddresses: 10 });
  expect(failTimes(throttle, '192.0.2.1', 5)).toEqual([0, 0, 0, 1, 1]);
  expect(throttle.fail('192.0.2.2')).toBe(0);
  await sleep(1100);
  expect(failTimes(throttle, '192.0.2.1', 4)).toEqual([0, 0, 0, 1]);
});

it('tracks at most trackedAddresses, forgetting the least recently failing first', () => {
  const throttle = new FailedAuthThrottle({ maxFailures: 1, maxFailuresAllAddresses: 100, windowSeconds: 60, trackedAddresses: 2 });
  expect(failTimes(throttle, 'a', 2)).toEqual([0, 60]);
  throttle.fail('b');
  throttle.fail('c');
  expect(throttle.fail('a')).toBe(0);
  expect(throttle.fail('c')).toBe(60);
});

it('holds every address once all of them together pass maxFailuresAllAddresses, until the window ends', async () => {
  const throttle = new FailedAuthThrottle({ maxFailures: 5, maxFailuresAllAddresses: 10, windowSeconds: 1, trackedAddresses: 3 });
  // A new address per failure, more than are tracked: each is under its own limit.
  const spread = Array.from({ length: 12 }, (_, i) => throttle.fail(`198.51.100.${i}`));
  expect(spread).toEqual([...Array<number>(10).fill(0), 1, 1]);
  expect(throttle.fail('203.0.113.1')).toBe(1);
  await sleep(1100);
  expect(throttle.fail('203.0.113.1')).toBe(0);
});
