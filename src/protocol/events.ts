/**
 * Events: what changed at a branch, detected by its agent and delivered by the gateway as
 * Standard Webhooks or read from a cursor feed. One schema for the wire, the store and the API.
 */
import { z } from 'zod';
import { integer, licenseKey } from './common.js';
import { productRecord } from './operations/catalogs.js';
import { orderRecord } from './operations/orders-read.js';
import { shiftRecord } from './operations/shifts.js';

export const EVENT_TYPES = [
  'orden.abierta',
  'orden.actualizada',
  'orden.impresa',
  'orden.reabierta',
  'orden.pagada',
  'orden.cancelada',
  'orden.cerrada',
  'turno.abierto',
  'turno.cerrado',
  'producto.actualizado',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The type a webhook test delivery carries; never stored in a branch's feed. */
export const TEST_EVENT_TYPE = 'webhook.prueba';

export const eventType = z.enum(EVENT_TYPES);

export const eventOrigin = z.enum(['api', 'pos']).describe('api: made by a job of this gateway (jobId says which); pos: made at the branch, by a terminal');

const eventFields = {
  id: z.string().min(1).max(64).describe('stable: a repeated delivery of one change always carries the same id (webhook-id)'),
  type: eventType,
  licenseKey,
  timestamp: z.string().describe('when the agent saw the change (ISO 8601)'),
  origin: eventOrigin,
  jobId: z.string().nullable().describe('the job that made the change, when origin is api'),
};

/**
 * An event on the wire from the agent. Its record is checked as an object only: a union of the
 * three record schemas would strip whatever the first that fits does not name.
 */
export const branchEvent = z.object({ ...eventFields, data: z.record(z.string(), z.unknown()).nullable() });

/** An event as the feed and webhooks deliver it, its record described for clients. */
export const documentedEvent = z.object({
  ...eventFields,
  data: z
    .union([orderRecord, shiftRecord, productRecord])
    .nullable()
    .describe(
      'the record as the lists return it: an order (orden.*; orden.cerrada from the history tables, null when the account left the temporary tables without a history copy), a shift (turno.*) or a product (producto.actualizado)',
    ),
});

export type BranchEvent = z.infer<typeof branchEvent>;

/** A feed entry: the event and the cursor that reads on after it. */
export const feedEvent = documentedEvent.extend({ cursor: z.string().describe('pass as `after` to read the events that follow this one') });

export const MAX_FEED_LIMIT = 500;
/** The largest bigint, the store's cursor type. */
const MAX_CURSOR = 2n ** 63n - 1n;
export const MAX_FEED_WAIT_SECONDS = 30;

export const feedQuery = z
  .object({
    after: z
      .string()
      .regex(/^\d{1,19}$/, 'must be a cursor from an earlier answer')
      // A cursor is a bigint sequence number: 19 digits can be past the largest, which the store refuses.
      .refine((v) => !/^\d+$/.test(v) || BigInt(v) <= MAX_CURSOR, 'must be a cursor from an earlier answer')
      .optional()
      .describe("the last cursor read (an event's `cursor` or `nextCursor`); absent: from the oldest event kept"),
    limit: integer((n) => n.min(1))
      .default(100)
      .transform((n) => Math.min(n, MAX_FEED_LIMIT))
      .describe(`events per answer, at most ${MAX_FEED_LIMIT}`),
    wait: integer((n) => n.min(0).max(MAX_FEED_WAIT_SECONDS))
      .default(0)
      .describe(`long poll: when no event follows \`after\`, wait up to this many seconds (0-${MAX_FEED_WAIT_SECONDS}) for one`),
    last: integer((n) => n.min(1).max(MAX_FEED_LIMIT))
      .optional()
      .describe("instead of `after`: the branch's newest this many events, oldest first, answered at once; read on from `nextCursor`"),
  })
  .refine((q) => q.after === undefined || q.last === undefined, { message: 'send after or last, not both', path: ['last'] });

export const feedPage = z.object({
  data: z.array(feedEvent).describe('oldest first, in the order the branch produced them'),
  nextCursor: z.string().nullable().describe('pass as `after` next time; the `after` sent when nothing new came'),
  hasMore: z.boolean().describe('more events follow at once: read again without waiting'),
});

export type FeedPage = z.infer<typeof feedPage>;

export const webhookCreate = z.object({
  url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .describe('https (plain http only where the gateway allows it); must not resolve to a private, loopback or link-local address'),
  eventos: z.array(eventType).min(1).max(EVENT_TYPES.length).describe('the event types to deliver'),
  licenseKeys: z.array(licenseKey).min(1).max(1000).optional().describe('only these branches of yours; absent: every branch of yours, present and future'),
});

export const webhookRecord = z.object({
  id: z.string(),
  url: z.string(),
  eventos: z.array(eventType),
  licenseKeys: z.array(z.string()).nullable(),
  createdAt: z.string(),
});

export const webhookCreated = webhookRecord.extend({
  secret: z.string().describe('whsec_…: the signing secret (Standard Webhooks); shown this once, never again'),
});

export const webhookIdParams = z.object({ id: z.uuid() });

export const deliveryAttempt = z.object({
  at: z.string(),
  status: z.number().int().nullable().describe("the receiver's HTTP status; null when none came"),
  error: z.string().nullable().describe('why the attempt failed: timeout, refused_address, unreachable, http_<status>…'),
  durationMs: z.number().int(),
});

export const deliveryRecord = z.object({
  id: z.string(),
  eventId: z.string(),
  type: z.string(),
  licenseKey: z.string().nullable(),
  state: z.enum(['pending', 'delivered', 'failed']).describe('failed: given up 24 h after the event (or a test delivery that failed once)'),
  attemptCount: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
  attempts: z.array(deliveryAttempt).describe('most recent first, at most 20'),
});

export const testDeliveryResult = z.object({
  deliveryId: z.string(),
  eventId: z.string(),
  state: z.enum(['delivered', 'failed']),
  status: z.number().int().nullable(),
  error: z.string().nullable(),
});
