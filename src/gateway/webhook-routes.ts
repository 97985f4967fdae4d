/**
 * Webhooks (issue 17): create (the signing secret is shown once), list, delete, send a test
 * event, and read a webhook's deliveries with their attempts. Gateway-local routes: no job goes
 * to an agent. A webhook belongs to the API key's user; another user's is answered as not found.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { integer } from '../protocol/common.js';
import { deliveryRecord, TEST_EVENT_TYPE, testDeliveryResult, webhookCreate, webhookCreated, webhookIdParams, webhookRecord } from '../protocol/events.js';
import { problemResponses } from './openapi.js';
import { ApiError } from './problems.js';
import type { GatewayStore } from './store.js';
import { checkWebhookUrl, type AddressPolicy } from './webhook-address.js';
import { newWebhookSecret, openSecret, sealSecret } from './webhook-secrets.js';
import { sendWebhook } from './webhook-sender.js';
import type { StoredWebhook } from './webhook-store.js';
import { authorizeBranch } from './branch-access.js';

export interface WebhookRoutesOptions {
  store: GatewayStore;
  webhookKey: Buffer;
  policy: AddressPolicy;
  timeoutMs: number;
}

const tags = ['Webhooks'];
const security = [{ apiKey: [] }];

const toRecord = (w: StoredWebhook) => ({ id: w.id, url: w.url, eventos: w.eventos, licenseKeys: w.licenseKeys, createdAt: w.createdAt.toISOString() });

function notFound(): ApiError {
  return new ApiError('webhook_not_found', 'No webhook with the id in the path is registered for this API key.');
}

export async function webhookRoutes(app: FastifyInstance, { store, webhookKey, policy, timeoutMs }: WebhookRoutesOptions): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/webhooks',
    {
      schema: {
        operationId: 'createWebhook',
        summary: 'Register a webhook: these event types of my branches are POSTed to the URL, signed (Standard Webhooks)',
        tags,
        security,
        body: webhookCreate,
        response: { 201: webhookCreated, ...problemResponses },
      },
    },
    async (request, reply) => {
      const { url, eventos, licenseKeys } = request.body;
      for (const licenseKey of new Set(licenseKeys)) await authorizeBranch(store, request.userId, licenseKey);
      const refused = await checkWebhookUrl(new URL(url), policy);
      if (refused) throw new ApiError('webhook_url_refused', `The webhook URL is refused: ${refused}.`);
      const secret = newWebhookSecret();
      const hook = await store.webhooks.create(request.userId, {
        url,
        eventos: [...new Set(eventos)],
        licenseKeys: licenseKeys ? [...new Set(licenseKeys)] : null,
        secretSealed: sealSecret(webhookKey, secret),
      });
      return reply.code(201).send({ ...toRecord(hook), secret });
    },
  );

  typed.get(
    '/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        summary: 'List my webhooks (never their secrets)',
        tags,
        security,
        response: { 200: z.object({ totalResults: z.number().int(), data: z.array(webhookRecord) }), ...problemResponses },
      },
    },
    async (request) => {
      const data = (await store.webhooks.list(request.userId)).map(toRecord);
      return { totalResults: data.length, data };
    },
  );

  typed.delete(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook and its pending deliveries',
        tags,
        security,
        params: webhookIdParams,
        response: { 204: z.null().describe('deleted'), ...problemResponses },
      },
    },
    async (request, reply) => {
      if (!(await store.webhooks.delete(request.userId, request.params.id))) throw notFound();
      return reply.code(204).send(null);
    },
  );

  typed.post(
    '/webhooks/:id/prueba',
    {
      schema: {
        operationId: 'testWebhook',
        summary: `Send a ${TEST_EVENT_TYPE} event to the webhook now, once, and say how it went`,
        tags,
        security,
        params: webhookIdParams,
        response: { 200: testDeliveryResult, ...problemResponses },
      },
    },
    async (request) => {
      const hook = await store.webhooks.get(request.userId, request.params.id);
      if (!hook) throw notFound();
      const eventId = `evt_test_${randomUUID()}`;
      const payload = JSON.stringify({
        id: eventId,
        type: TEST_EVENT_TYPE,
        licenseKey: null,
        timestamp: new Date().toISOString(),
        origin: 'api',
        jobId: null,
        data: null,
      });
      // Leased to this request for longer than the attempt can take: the delivery loop leaves it alone.
      const deliveryId = await store.events.addTestDelivery(hook.id, eventId, TEST_EVENT_TYPE, payload, timeoutMs * 3);
      const at = new Date();
      const result = await sendWebhook(hook.url, { id: eventId, body: payload, secret: openSecret(webhookKey, hook.secretSealed) }, policy, timeoutMs);
      const delivered = result.error === null;
      await store.events.recordAttempt(deliveryId, { at, ...result }, delivered ? { delivered: true } : { delivered: false, retryAt: null });
      return { deliveryId, eventId, state: delivered ? ('delivered' as const) : ('failed' as const), status: result.status, error: result.error };
    },
  );

  typed.get(
    '/webhooks/:id/entregas',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: "A webhook's most recent deliveries, newest first, with their attempts",
        tags,
        security,
        params: webhookIdParams,
        querystring: z.object({
          limit: integer((n) => n.min(1).max(200))
            .default(50)
            .describe('deliveries per answer, at most 200'),
        }),
        response: { 200: z.object({ totalResults: z.number().int(), data: z.array(deliveryRecord) }), ...problemResponses },
      },
    },
    async (request) => {
      const hook = await store.webhooks.get(request.userId, request.params.id);
      if (!hook) throw notFound();
      const iso = (d: Date | null) => (d ? d.toISOString() : null);
      const data = (await store.events.listDeliveries(hook.id, request.query.limit)).map((d) => ({
        ...d,
        nextAttemptAt: iso(d.nextAttemptAt),
        deliveredAt: iso(d.deliveredAt),
        createdAt: d.createdAt.toISOString(),
        attempts: d.attempts.map((a) => ({ ...a, at: a.at.toISOString() })),
      }));
      return { totalResults: data.length, data };
    },
  );
}
