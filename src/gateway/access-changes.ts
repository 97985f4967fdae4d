/**
 * Keeps a running gateway's cached key, branch and printer lookups true to the store:
 * `branch-agent keys` (another process) and any gateway changing a printer announce each change
 * on ACCESS_CHANNEL, and this listener forgets the affected lookups at once, so a new API key
 * works, a revoked one stops, an agent whose token was replaced is checked again and a print
 * goes to the printer's new address. While it listens, cached lookups do not expire
 * (access-cache.ts); from the moment its connection is found lost, they last 30 s at most. A
 * connection lost without a word (a dropped NAT entry) is found by the heartbeat within
 * about 13 s, so a change it missed is seen within 30 s all the same.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { ACCESS_CHANNEL } from './access-cache.js';
import type { GatewayStore } from './store.js';

/** How the listening connection shows in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'gateway access listener';

export interface AccessWatch {
  stop(): Promise<void>;
}

export async function watchAccessChanges(
  store: GatewayStore,
  /** A branch's token or owner changed; undefined: any branch may have (missed while reconnecting). */
  onBranchChanged: (licenseKey?: string) => void,
  log: Logger,
  timing: { reconnectMs?: number; heartbeatMs?: number } = {},
): Promise<AccessWatch> {
  const reconnectMs = timing.reconnectMs ?? 5_000;
  const heartbeatMs = timing.heartbeatMs ?? 10_000;
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const onNotice = (payload: string) => {
    if (payload === 'keys') store.forgetApiKeys();
    else if (payload.startsWith('branch:')) {
      const licenseKey = payload.slice('branch:'.length);
      store.forgetBranch(licenseKey);
      onBranchChanged(licenseKey);
    } else if (payload.startsWith('printer:')) store.printers.forget(payload.slice('printer:'.length));
  };

  // Once per connection, from its end, an error or a missed heartbeat, whichever comes first.
  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = undefined;
    store.hearChanges(false);
    void c.end().catch(() => undefined);
    if (!stopped) schedule();
  };

  const listen = async (reconnecting: boolean) => {
    // A half-open link (a NAT or firewall dropping it) raises no error: the heartbeat's own
    // timeout is what notices it. The application name tells this connection apart in pg_stat_activity.
    const c = new pg.Client({
      connectionString: store.url,
      keepAlive: true,
      query_timeout: Math.max(1_000, heartbeatMs / 3),
      application_name: LISTENER_APPLICATION_NAME,
    });
    c.on('notification', (n) => onNotice(n.payload ?? ''));
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`listen ${ACCESS_CHANNEL}`);
    } catch (error) {
      await c.end().catch(() => undefined);
      throw error;
    }
    if (stopped) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    // Changes made while nobody listened are not replayed: start from a clean cache.
    store.forgetAll();
    store.hearChanges(true);
    if (reconnecting) onBranchChanged();
  };

  // A reconnect that works at once is not worth a warning (nor is the store stopping with the
  // process); one that fails is, once per outage.
  let warned = false;
  const schedule = () => {
    retry = setTimeout(() => {
      listen(true).then(
        () => {
          if (warned) log.info('listening for key and branch changes again');
          warned = false;
        },
        (error: unknown) => {
          if (stopped) return;
          if (!warned)
            log.warn({ err: error }, 'cannot listen for key and branch changes; cached keys and owners may be up to 30 s stale until the store answers');
          warned = true;
          schedule();
        },
      );
    }, reconnectMs);
  };

  const heartbeat = setInterval(() => {
    const c = client;
    c?.query('select 1').catch(() => lost(c));
  }, heartbeatMs);
  heartbeat.unref();

  try {
    await listen(false);
  } catch (error) {
    clearInterval(heartbeat);
    throw error;
  }
  return {
    async stop() {
      stopped = true;
      store.hearChanges(false);
      clearInterval(heartbeat);
      clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
