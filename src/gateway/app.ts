/**
 * The gateway's HTTP server: health, OpenAPI and docs without a key, the API behind it, and
 * the agents' WebSocket endpoint on the same port.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { ERROR_STATUS, ERROR_TITLES, isErrorCode } from '../protocol/errors.js';
import type { PrinterRule } from '../protocol/printer-rule.js';
import { VERSION } from '../version.js';
import { apiPlugin, rateLimitWindowMs } from './api.js';
import { watchAccessChanges } from './access-changes.js';
import { AgentHub } from './hub.js';
import { joinCluster, type ClusterLink, type ClusterOptions } from './cluster/cluster-link.js';
import { consoleRoutes } from './console/routes.js';
import { sharedRateLimitStore } from './cluster/shared-rate-limit.js';
import { releaseDownloads } from './fleet/release-download.js';
import { RolloutDriver } from './fleet/rollout-driver.js';
import { describeApi } from './openapi.js';
import { acceptOnlyUtf8Json } from './json-body.js';
import { FeedSignals } from './event-feed.js';
import type { AddressPolicy } from './webhook-address.js';
import { WebhookDelivery, type DeliveryOptions } from './webhook-delivery.js';
import { JobLog } from './job-log.js';
import { schedulePurges } from './purges.js';
import { gatewayDefaults } from '../config/schema.js';
import type { FailedAuthLimit } from './failed-auth-throttle.js';
import { answerFrameworkError, clientErrorAnswerer } from './framework-errors.js';
import { ApiError, problemTypeBase, sendProblem, toApiError } from './problems.js';
import type { GatewayStore } from './store.js';
import { refuseUnstorableText } from './unstorable-text.js';

/** What the gateway is built with; an option left out takes the config schema's default (gatewayDefaults). */
export interface GatewayOptions {
  store: GatewayStore;
  log: Logger;
  jobTimeoutMs?: number;
  /** How long a client may take to send its whole request (headers and body) before 408; 60 s unless given. */
  requestTimeoutMs?: number;
  rateLimit?: { perSecond: number; burst: number };
  /** Failed authentications allowed per client address, and over all, before 429. */
  failedAuthLimit?: FailedAuthLimit;
  /** Where printers may be registered (the config default unless given). */
  printers?: PrinterRule;
  /** The proxies (addresses/CIDRs) whose X-Forwarded-For names the client address; none unless given. */
  trustProxy?: readonly string[];
  /** The address clients reach the gateway at, the base of problems' `type`; the request's host unless given. */
  publicUrl?: string;
  idempotencyRetentionHours?: number;
  /** Job log entries older than this are purged. */
  jobLogRetentionDays?: number;
  /** How often records past their retention are purged. */
  purgeIntervalMs?: number;
  hub?: { pingIntervalMs?: number; deadAfterMs?: number };
  /** Seals webhook signing secrets in the store (webhook-secrets.ts); every gateway of a store needs the same. */
  webhookKey: Buffer;
  /** Events older than this are purged. */
  eventRetentionDays?: number;
  /** Where webhooks may point (https and public addresses unless relaxed), and how they are retried. */
  webhooks?: Partial<AddressPolicy & Pick<DeliveryOptions, 'retryBaseMs' | 'retryMaxMs' | 'giveUpAfterMs' | 'timeoutMs' | 'pollMs'>>;
  /** Cluster mode: several instances on one store, routing jobs over NATS (./cluster/). */
  cluster?: ClusterOptions;
}

export interface Gateway {
  app: FastifyInstance;
  hub: AgentHub;
}

const REQUEST_TIMEOUT_MS = 60_000;

export async function buildGateway(opts: GatewayOptions): Promise<Gateway> {
  const defaults = gatewayDefaults();
  const requestTimeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const typeBase = problemTypeBase(opts.publicUrl);
  const app: FastifyInstance = Fastify({
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the lint sees no difference; tsc needs Fastify's logger type, not pino's
    loggerInstance: opts.log as FastifyBaseLogger,
    // The job log in the store records every dispatched call; per-request lines would repeat it.
    logController: new LogController({ disableRequestLogging: true }),
    // Trusted from anyone, the header would let a client pick the address its failures count against.
    trustProxy: opts.trustProxy?.length ? [...opts.trustProxy] : false,
    bodyLimit: 4 * 1024 * 1024,
    // A client trickling its request held a connection for good (Fastify sets no limit): many
    // of them took every file descriptor. Node checks the limit every connectionsCheckingInterval.
    requestTimeout,
    http: { headersTimeout: requestTimeout, connectionsCheckingInterval: Math.min(5_000, requestTimeout) },
    ajv: { customOptions: { coerceTypes: false } },
    clientErrorHandler: clientErrorAnswerer(typeBase),
    frameworkErrors: answerFrameworkError,
    // A cluster instance keeps listening while it hands over its agents: what it refuses then
    // is told in a problem (below), so the client knows another instance will answer.
    return503OnClosing: !opts.cluster,
  });
  app.decorate('problemTypeBase', typeBase);
  acceptOnlyUtf8Json(app);
  const jobTimeoutMs = opts.jobTimeoutMs ?? defaults.jobTimeoutMs;
  const { allowHttp, allowLoopback, allowPrivate, timeoutMs: webhookTimeoutMs, ...retry } = opts.webhooks ?? {};
  const policy: AddressPolicy = {
    allowHttp: allowHttp ?? defaults.webhooks.allowHttp,
    allowLoopback: allowLoopback ?? defaults.webhooks.allowLoopback,
    allowPrivate: allowPrivate ?? defaults.webhooks.allowPrivate,
  };
  const timeoutMs = webhookTimeoutMs ?? defaults.webhooks.timeoutMs;
  const delivery = new WebhookDelivery({ store: opts.store, log: opts.log, webhookKey: opts.webhookKey, policy, timeoutMs, ...retry });
  const signals = new FeedSignals();
  const hub = new AgentHub({
    store: opts.store,
    log: opts.log,
    jobTimeoutMs,
    ...opts.hub,
    // Acknowledged to the agent only once this has stored them (with their deliveries).
    onEvents: async (licenseKey, events) => {
      if ((await opts.store.events.append(licenseKey, events)) === 0) return;
      delivery.wake();
      signals.notify(licenseKey);
    },
  });
  let cluster: ClusterLink | undefined;
  try {
    cluster = opts.cluster && (await joinCluster(opts.cluster, hub, opts.store, opts.log));
  } catch (error) {
    await hub.close();
    throw error;
  }
  hub.attach(app.server);
  // Before the server closes: open agent sockets would otherwise keep it from closing. In a
  // cluster the agents are handed to another instance first, once the jobs here are answered.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    await cluster?.handOver(jobTimeoutMs);
    await hub.close();
  });
  if (cluster) {
    app.addHook('onClose', () => cluster.close());
    app.addHook('onRequest', async () => {
      if (closing) throw new ApiError('gateway_stopping', 'This gateway instance is restarting; retry, and another one answers.', {}, { 'retry-after': '1' });
    });
  }
  // Node closes the keep-alive connections that are idle when closing starts; one still answering
  // then would stay open for the whole keep-alive timeout (72 s) and hold the shutdown with it.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
    // An answer is for the key that asked, and caches do not know X-Api-Key for a credential (as
    // they do Authorization): a shared one in front would hand one user's branches, or a new
    // webhook's secret, to the next request for the URL. The console's files set their own.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  });

  app.setValidatorCompiler(validatorCompiler);
  // Answers go out as the agent built them, unchecked here: checking every row of every list
  // would cost each request, so the tests check them instead against the schemas /openapi.json
  // publishes (test/e2e/openapi.test.ts and the API property test).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setErrorHandler((error, request, reply) => {
    const problem = toApiError(error as FastifyError);
    if (problem.status >= 500 && problem.code === 'internal_error') request.log.error({ err: error, url: request.url }, 'request failed');
    return sendProblem(request, reply, problem);
  });
  // Before every route: a string no database can keep is refused before anything runs (a body's, as it is parsed).
  app.addHook('preValidation', refuseUnstorableText);
  app.setNotFoundHandler((request, reply) => sendProblem(request, reply, toApiError(Object.assign(new Error('not found'), { statusCode: 404 }) as never)));

  await describeApi(app);
  app.get('/healthz', { schema: { hide: true } }, () => ({ status: 'ok', version: VERSION }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await opts.store.ping();
      return { status: 'ready', agentsConnected: hub.connectedCount };
    } catch {
      return reply.code(503).send({ status: 'store_unavailable' });
    }
  });
  app.get<{ Params: { code: string } }>('/problems/:code', { schema: { hide: true } }, (request, reply) => {
    const { code } = request.params;
    if (!isErrorCode(code)) return sendProblem(request, reply, toApiError(Object.assign(new Error('not found'), { statusCode: 404 }) as never));
    return { code, status: ERROR_STATUS[code], title: ERROR_TITLES[code] };
  });

  const rateLimit = opts.rateLimit ?? defaults.rateLimit;
  const jobLog = new JobLog(opts.store, opts.log);
  app.addHook('onClose', () => jobLog.flush());
  await app.register(apiPlugin, {
    store: opts.store,
    hub,
    jobTimeoutMs,
    rateLimit,
    // One instance counts in memory; a cluster counts in the store all instances share.
    ...(opts.cluster ? { rateLimitStore: sharedRateLimitStore(opts.store.rateLimits, rateLimitWindowMs(rateLimit)) } : {}),
    failedAuthLimit: opts.failedAuthLimit ?? defaults.failedAuthLimit,
    idempotencyRetentionMs: (opts.idempotencyRetentionHours ?? defaults.idempotencyRetentionHours) * 3_600_000,
    jobLog,
    rollouts: new RolloutDriver(opts.store, hub, opts.log),
    printers: opts.printers ?? defaults.printers,
    events: { signals, webhookKey: opts.webhookKey, policy, timeoutMs },
  });
  delivery.start();
  app.addHook('onClose', () => delivery.stop());
  await app.register(releaseDownloads, { store: opts.store });
  await app.register(consoleRoutes);
  try {
    const access = await watchAccessChanges(opts.store, (licenseKey) => void hub.revalidate(licenseKey), opts.log);
    app.addHook('onClose', () => access.stop());
  } catch (error) {
    // The hub is attached and pinging already: close it with the app.
    await app.close();
    throw error;
  }
  const purges = schedulePurges(opts.store, opts.log, {
    jobLogRetentionMs: (opts.jobLogRetentionDays ?? defaults.jobLogRetentionDays) * 86_400_000,
    eventRetentionMs: (opts.eventRetentionDays ?? defaults.eventRetentionDays) * 86_400_000,
    everyMs: opts.purgeIntervalMs ?? defaults.purgeIntervalMinutes * 60_000,
  });
  app.addHook('onClose', () => purges.stop());
  return { app, hub };
}
