/**
 * auth-cache: growth of the gateway process's resident memory while 100,000 distinct unknown API
 * keys are looked up, as a flood of bad keys makes the store do (each lookup answers null and is
 * cached). The cache is bounded (apiKeyCacheSize), so the growth stays flat. Target: at most 10 MB.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BenchContext } from './run.js';

const KEYS = 100_000;
/** Lookups in flight at once: a few more than the store's 10 connections, as under a flood. */
const CONCURRENCY = 16;

// The measure is what stays after the garbage is gone: collect before reading RSS.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const mb = (bytes: number) => bytes / 1024 / 1024;

/** RSS once the garbage is collected and the heap has given back what it no longer uses. */
async function settledRss(): Promise<number> {
  for (let i = 0; i < 5; i++) {
    gc();
    await sleep(200);
  }
  return process.memoryUsage().rss;
}

async function lookUp(ctx: BenchContext, prefix: string, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const key = `${prefix}-${next++}`;
      if ((await ctx.stack.store.userForApiKey(key)) !== null) throw new Error(`${key} is not a key, yet the store knows it`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export async function authCacheBench(ctx: BenchContext): Promise<string[]> {
  // The same number of lookups first, so pools, compiled code and allocator arenas are at their
  // working size before the baseline is read; then a fresh set of keys is what is measured.
  await lookUp(ctx, 'bench-warm-up', KEYS);
  const before = await settledRss();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = Date.now();
  await lookUp(ctx, 'bench-unknown', KEYS);
  const seconds = (Date.now() - started) / 1000;
  const growth = mb((await settledRss()) - before);
  const heap = mb(process.memoryUsage().heapUsed - heapBefore);
  return [
    `auth-cache: RSS growth after 100,000 unknown keys: ${growth.toFixed(1)} MB  (heap ${heap >= 0 ? '+' : ''}${heap.toFixed(1)} MB; ${Math.round(KEYS / seconds)} lookups/s; target ≤ 10 MB)`,
  ];
}
