/**
 * A gateway instance in a process of its own (forked by agents.ts), so that its resident memory
 * is the gateway's alone and the load and the simulated agents run on other event loops.
 * Parent → child: `{ storeUrl }` to start, `'memory'` for a reading, `'stop'`; child → parent:
 * `{ url }`, then `{ rss, heapUsed }` per reading.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { buildGateway, type Gateway } from '../src/gateway/app.js';
import { GatewayStore } from '../src/gateway/store.js';

export interface MemoryReading {
  rss: number;
  heapUsed: number;
}

const log = pino({ level: 'warn' });
let gateway: Gateway | undefined;
let store: GatewayStore | undefined;

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
      const url = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      process.send!({ url });
    })();
  }
});
