/**
 * GET /eventos/{licenseKey}: a branch's events after a cursor, for clients that cannot receive
 * webhooks. With `wait`, a read that finds nothing new waits (long poll) until an event of the
 * branch is stored here, or checks the store again every second for those another gateway of the
 * same store took in.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { branchParams } from '../protocol/printers.js';
import { feedPage, feedQuery } from '../protocol/events.js';
import { problemResponses } from './openapi.js';
import type { StoredEvent } from './event-store.js';
import type { GatewayStore } from './store.js';
import { authorizeBranch } from './branch-access.js';

/** Wakes the long polls waiting on a branch when its events are stored. */
export class FeedSignals {
  readonly #waiters = new Map<string, Set<() => void>>();

  notify(licenseKey: string): void {
    for (const wake of this.#waiters.get(licenseKey) ?? []) wake();
  }

  /** Releases every waiter (the gateway is closing). */
  releaseAll(): void {
    for (const set of this.#waiters.values()) for (const wake of set) wake();
  }

  /** Resolves on `notify(licenseKey)` or after `ms`. */
  wait(licenseKey: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.#waiters.get(licenseKey);
      if (!set) this.#waiters.set(licenseKey, (set = new Set()));
      const waiters = set;
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        if (waiters.size === 0 && this.#waiters.get(licenseKey) === waiters) this.#waiters.delete(licenseKey);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiters.add(wake);
    });
  }
}

const feedEntry = (r: StoredEvent) => ({ ...r.event, cursor: r.cursor });

/** How often a long poll looks at the store for events another gateway stored. */
const RECHECK_MS = 1_000;

export async function eventFeedRoutes(app: FastifyInstance, { store, signals }: { store: GatewayStore; signals: FeedSignals }): Promise<void> {
  let closing = false;
  app.addHook('preClose', () => {
    closing = true;
    signals.releaseAll();
  });
  app.withTypeProvider<ZodTypeProvider>().get(
    '/eventos/:licenseKey',
    {
      schema: {
        operationId: 'readEvents',
        summary: "Read a branch's events after a cursor (optionally waiting for the next)",
        tags: ['Events'],
        security: [{ apiKey: [] }],
        params: branchParams,
        querystring: feedQuery,
        response: { 200: feedPage, ...problemResponses },
      },
    },
    async (request) => {
      const { licenseKey } = request.params;
      await authorizeBranch(store, request.userId, licenseKey);
      const { after, limit, wait, last } = request.query;
      if (last !== undefined) {
        const rows = await store.events.latest(licenseKey, last);
        return { data: rows.map(feedEntry), nextCursor: rows.at(-1)?.cursor ?? null, hasMore: false };
      }
      const until = Date.now() + wait * 1000;
      for (;;) {
        // One more than asked: whether more follow at once.
        const rows = await store.events.feed(licenseKey, after, limit + 1);
        const left = until - Date.now();
        if (rows.length > 0 || left <= 0 || closing) {
          const page = rows.slice(0, limit);
          return {
            data: page.map(feedEntry),
            nextCursor: page.at(-1)?.cursor ?? after ?? null,
            hasMore: rows.length > limit,
          };
        }
        await signals.wait(licenseKey, Math.min(left, RECHECK_MS));
      }
    },
  );
}
