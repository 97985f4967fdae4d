import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `check` every `intervalMs` until it holds; fails after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, intervalMs = 10): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
