/**
 * The authenticated API: X-Api-Key (failures throttled per address), per-key rate limit, branch
 * scoping, and one generic handler that turns a RouteDef into a job for the branch's agent and its
 * answer into the envelope.
 */
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { JobMessage } from '../protocol/messages.js';
import type { PrinterRule } from '../protocol/printer-rule.js';
import { answerOnce, idempotencyHeaders, idempotencyKeyOf, PendingRecords, type KeyedWrites } from './idempotency.js';
import { ApiError, jobErrorToApiError, validationProblem } from './problems.js';
import { AgentOfflineError, AgentTimeoutError, type AgentHub } from './hub.js';
import { authenticate } from './authentication.js';
import type { FailedAuthLimit } from './failed-auth-throttle.js';
import type { JobLog } from './job-log.js';
import { problemResponses } from './openapi.js';
import { apiRoutes } from './routes/index.js';
import { envelope } from './routes/envelope.js';
import { pathSchema, payloadSchema, successResponse, type RouteDef } from './routes/route.js';
import type { GatewayStore } from './store.js';
import { sha256 } from './secrets.js';
import { fleetRoutes } from './fleet/routes.js';
import type { RolloutDriver } from './fleet/rollout-driver.js';
import { printerRoutes } from './printers.js';
import { eventFeedRoutes, type FeedSignals } from './event-feed.js';
import type { AddressPolicy } from './webhook-address.js';
import { webhookRoutes } from './webhook-routes.js';
import { authorizeBranch } from './branch-access.js';

declare module 'fastify' {
  interface FastifyRequest {
    userId: number;
  }
}

export interface ApiOptions {
  store: GatewayStore;
  hub: AgentHub;
  jobTimeoutMs: number;
  rateLimit: { perSecond: number; burst: number };
  /** Where requests are counted; in memory unless given. */
  rateLimitStore?: FastifyRateLimitStoreCtor;
  failedAuthLimit: FailedAuthLimit;
  idempotencyRetentionMs: number;
  jobLog: JobLog;
  rollouts: RolloutDriver;
  printers: PrinterRule;
  events: { signals: FeedSignals; webhookKey: Buffer; policy: AddressPolicy; timeoutMs: number };
}

/** A token bucket of `burst` refilled at `perSecond`, approximated by a window of burst/perSecond. */
export function rateLimitWindowMs(limit: { perSecond: number; burst: number }): number {
  return Math.round((limit.burst / limit.perSecond) * 1000);
}

export async function apiPlugin(app: FastifyInstance, opts: ApiOptions): Promise<void> {
  const { store, hub } = opts;
  app.decorateRequest('userId', 0);

  app.addHook('onRequest', authenticate(store, opts.failedAuthLimit));

  await app.register(rateLimit, {
    max: opts.rateLimit.burst,
    timeWindow: rateLimitWindowMs(opts.rateLimit),
    keyGenerator: (request) => sha256(String(request.headers['x-api-key'])),
    enableDraftSpec: true,
    ...(opts.rateLimitStore ? { store: opts.rateLimitStore } : {}),
    errorResponseBuilder: (_request, context) => {
      return new ApiError(
        'rate_limited',
        `Too many requests for this API key; retry in ${Math.ceil(context.ttl / 1000)} s.`,
        {},
        {
          'retry-after': String(Math.ceil(context.ttl / 1000)),
        },
      );
    },
  });

  await printerRoutes(app, { store, hub, rule: opts.printers });
  await eventFeedRoutes(app, { store, signals: opts.events.signals });
  await webhookRoutes(app, { store, webhookKey: opts.events.webhookKey, policy: opts.events.policy, timeoutMs: opts.events.timeoutMs });
  // A claim is taken over once it is older than twice a job's timeout: its request has surely ended.
  const keyed: KeyedWrites = { store, retentionMs: opts.idempotencyRetentionMs, staleAfterMs: opts.jobTimeoutMs * 2, pending: new PendingRecords() };
  app.addHook('onClose', () => keyed.pending.drain());
  await fleetRoutes(app, { store, rollouts: opts.rollouts, keyed });

  const typed = app.withTypeProvider<ZodTypeProvider>();
  for (const def of apiRoutes) {
    typed.route({
      method: def.method,
      url: def.url,
      // A search sent as POST only reads: the operation, not the method, says what the key needs.
      config: { scope: def.op.write ? 'write' : 'read' },
      schema: {
        operationId: def.operationId,
        summary: def.summary,
        tags: [def.tag],
        security: [{ apiKey: [] }],
        params: pathSchema(def),
        ...(def.from === 'query' ? { querystring: payloadSchema(def) } : { body: payloadSchema(def) }),
        ...(def.op.write ? { headers: idempotencyHeaders(def.idempotencyKey ?? 'required') } : {}),
        response: { [def.status ?? 200]: successResponse(def), ...problemResponses },
      },
      handler: async (request, reply) => {
        const path = request.params;
        const { licenseKey: inBody, ...payload } = (def.from === 'query' ? request.query : request.body) as Record<string, unknown>;
        const licenseKey = String(def.licenseKeyIn === 'body' ? inBody : path.licenseKey);
        const key = def.op.write ? idempotencyKeyOf(request) : undefined;
        await authorizeBranch(store, request.userId, licenseKey);
        let params: Record<string, unknown> = { ...payload, ...Object.fromEntries((def.pathInput ?? []).map((k) => [k, path[k]])) };
        // Fastify validated the payload; with path parameters merged in, the whole input is checked once more.
        if (def.pathInput?.length) {
          const checked = def.op.input.safeParse(params);
          if (!checked.success) throw validationProblem(checked.error.issues, def.from === 'query' ? 'querystring' : 'body');
        }
        const prepare = def.prepare;
        const routeContext = { userId: request.userId, licenseKey, store };
        if (!key) {
          if (prepare) params = await prepare(routeContext, params);
          const body = (await dispatch(def, licenseKey, params)) as Record<string, unknown>;
          if (def.envelope !== 'xml') return reply.code(def.status ?? 200).send(body);
          return reply
            .type('application/xml; charset=utf-8')
            .header('x-job-id', String(body.jobId))
            .header('content-disposition', `attachment; filename="${typeof body.fileName === 'string' ? body.fileName : 'document.xml'}"`)
            .send(body.xml);
        }

        return answerOnce(
          keyed,
          request,
          reply,
          key,
          async (print, prepared, claim) => {
            const body = await dispatch(def, licenseKey, prepared, { scope: `user:${request.userId}`, key, fingerprint: print }, claim);
            return { status: def.status ?? 200, body, jobId: (body as { jobId?: string }).jobId };
          },
          { prepared: prepare ? prepare(routeContext, params) : Promise.resolve(params), holdsCommit: true },
        );
      },
    });
  }

  async function dispatch(
    def: RouteDef,
    licenseKey: string,
    params: unknown,
    idempotency?: JobMessage['idempotency'],
    claim?: Promise<boolean>,
  ): Promise<unknown> {
    const startedAt = new Date();
    let outcome;
    try {
      outcome = await hub.dispatch({ licenseKey, op: def.op.name, params, idempotency, timeoutMs: opts.jobTimeoutMs, claim });
    } catch (error) {
      if (error instanceof AgentOfflineError) throw new ApiError('agent_offline', error.message);
      if (error instanceof AgentTimeoutError) throw new ApiError('agent_timeout', error.message);
      throw error;
    }
    opts.jobLog.add({
      job_id: outcome.jobId,
      license_key: licenseKey,
      op: def.op.name,
      worker_id: outcome.workerId,
      outcome: outcome.ok ? 'ok' : 'error',
      error_code: outcome.error?.code ?? null,
      started_at: startedAt,
      duration_ms: Date.now() - startedAt.getTime(),
    });
    if (!outcome.ok) {
      const e = outcome.error!;
      throw jobErrorToApiError(e.code, e.message, e.details, outcome.jobId);
    }
    const data = outcome.data as Record<string, unknown>;
    def.check?.(data, outcome.jobId);
    return envelope(def, outcome, data);
  }
}
