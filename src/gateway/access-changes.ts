/**
 * Keeps a running gateway's cached key and branch lookups true to the store: `branch-agent keys`
 * (another process) announces each change on ACCESS_CHANNEL, and this listener forgets the
 * affected lookups at once, so a new API key works, a revoked one stops, and an agent whose
 * token was replaced is checked again, all without waiting for the 30 s cache to expire.
 * While the listening connection is down the cache's own expiry still bounds the delay.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { ACCESS_CHANNEL, type GatewayStore } from './store.js';

export interface AccessWatch {
  stop(): Promise<void>;
}

export async function watchAccessChanges(
  store: GatewayStore,
  /** A branch's token or owner changed; undefined: any branch may have (missed while reconnecting). */
  onBranchChanged: (licenseKey?: string) => void,
  log: Logger,
  reconnectMs = 5_000,
): Promise<AccessWatch> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const onNotice = (payload: string) => {
    if (payload === 'keys') store.forgetApiKeys();
    else if (payload.startsWith('branch:')) {
      const licenseKey = payload.slice('branch:'.length);
      store.forgetBranch(licenseKey);
      onBranchChanged(licenseKey);
    }
  };

  const listen = async (reconnecting: boolean) => {
    const c = new pg.Client({ connectionString: store.url });
    c.on('notification', (n) => onNotice(n.payload ?? ''));
    c.on('error', () => undefined);
    await c.connect();
    try {
      await c.query(`listen ${ACCESS_CHANNEL}`);
    } catch (error) {
      await c.end().catch(() => undefined);
      throw error;
    }
    c.on('end', () => {
      client = undefined;
      if (stopped) return;
      log.warn('lost the store connection that announces key and branch changes; reconnecting');
      schedule();
    });
    client = c;
    // Changes made while nobody listened are not replayed: start from a clean cache.
    store.forgetApiKeys();
    store.forgetBranch();
    if (reconnecting) onBranchChanged();
  };

  const schedule = () => {
    retry = setTimeout(() => {
      listen(true).catch(() => {
        if (!stopped) schedule();
      });
    }, reconnectMs);
  };

  await listen(false);
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
