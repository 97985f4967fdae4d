/**
 * A gateway instance in a process of its own (forked by agents.ts), so that its resident memory
 * is the gateway's alone and the load and the simulated agents run on other event loops.
 * Parent → child: `{ storeUrl }` to start, `'memory'` for a reading, `'served'` for the times
 * it took to answer (from the request's arrival to its answer, and the event loop's delay) and the
 * CPU time it used since the last `'served'`, `'stop'`; child → parent: `{ url }`, then the reading asked for.
 */
import { randomBytes } from 'node:crypto';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import pino from 'pino';
import { buildGateway, type Gateway } from '../src/gateway/app.js';
import { GatewayStore } from '../src/gateway/store.js';
import { growHeapBetweenFullCollections } from '../src/gateway/heap-growth.js';
import { percentile } from './measure.js';

export interface MemoryReading {
  rss: number;
  heapUsed: number;
}

/** Milliseconds, as the gateway itself saw them. */
export interface ServedReading {
  p50: number;
  p99: number;
  loopDelayP99: number;
  /** This process's CPU time in the same span. */
  cpuMs: number;
  /** Full (mark-compact) collections in the same span, and the longest pause of any collection. */
  fullCollections: number;
  longestPauseMs: number;
}

const log = pino({ level: 'warn' });
let gateway: Gateway | undefined;
let store: GatewayStore | undefined;
let served: number[] = [];
let cpu = process.cpuUsage();
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
// As runGateway sets it for a gateway service (agents.ts starts this process with the rest).
growHeapBetweenFullCollections();
let collections = { full: 0, longestMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) collections.full++;
    collections.longestMs = Math.max(collections.longestMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

function servedSinceLast(): ServedReading {
  const sorted = served.sort((a, b) => a - b);
  const used = process.cpuUsage(cpu);
  const reading = {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    loopDelayP99: loopDelay.percentile(99) / 1e6,
    cpuMs: (used.user + used.system) / 1000,
    fullCollections: collections.full,
    longestPauseMs: collections.longestMs,
  };
  served = [];
  collections = { full: 0, longestMs: 0 };
  cpu = process.cpuUsage();
  loopDelay.reset();
  return reading;
}

/** Collects what can be collected first (the parent forks with --expose-gc): the reading is what stays. */
function memory(): MemoryReading {
  const collect = (globalThis as { gc?: () => void }).gc;
  collect?.();
  collect?.();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

process.on('message', (message: unknown) => {
  if (message === 'memory') {
    process.send!(memory());
  } else if (message === 'served') {
    process.send!(servedSinceLast());
  } else if (message === 'stop') {
    void (async () => {
      await gateway?.app.close();
      await store?.close();
      process.exit(0);
    })();
  } else {
    void (async () => {
      const { storeUrl } = message as { storeUrl: string };
      store = new GatewayStore(storeUrl);
      gateway = await buildGateway({ store, log, webhookKey: randomBytes(32), rateLimit: { perSecond: 1_000_000, burst: 1_000_000 } });
      // Cheap, as anything measured inside the process is paid by the gateway's own numbers.
      const arrived = new WeakMap<object, number>();
      gateway.app.addHook('onRequest', (request, _reply, done) => {
        arrived.set(request, performance.now());
        done();
      });
      gateway.app.addHook('onResponse', (request, _reply, done) => {
        const start = arrived.get(request);
        if (start !== undefined) served.push(performance.now() - start);
        done();
      });
      const url = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      process.send!({ url });
    })();
  }
});
