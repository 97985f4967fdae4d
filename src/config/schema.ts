/**
 * config.json: one file for a branch server (`agent`) or a gateway host (`gateway`), validated
 * with clear messages. Secrets may come from the environment instead of the file.
 */
import { z } from 'zod';
import {
  DEFAULT_API_KEY_CACHE_SIZE,
  DEFAULT_EVENT_RETENTION_DAYS,
  DEFAULT_FAILED_AUTH_LIMIT,
  DEFAULT_IDEMPOTENCY_RETENTION_HOURS,
  DEFAULT_JOB_LOG_RETENTION_DAYS,
  DEFAULT_PURGE_INTERVAL_MINUTES,
} from './gateway-defaults.js';
import { licenseKey } from '../protocol/common.js';
import { isAddressOrCidr } from './address-or-cidr.js';
import { printerRuleConfig } from './printer-rule-config.js';

/**
 * The schemas are built for each read of a config and dropped after it: held at module level they
 * would stay in the agent's heap (0.3 MB, the gateway's section too) for a file read once.
 */
export function configSchemas() {
  const lockTimeoutMs = z
    .number()
    .int()
    .min(1)
    .max(600_000)
    .optional()
    .describe('how long a statement waits for records a terminal holds before the job answers pos_busy; default 10000');

  const postgresDatabase = z.object({
    dialect: z.literal('postgres'),
    url: z.string().min(1),
    poolSize: z.number().int().min(1).max(100).optional(),
    lockTimeoutMs,
  });

  const mssqlDatabase = z.object({
    dialect: z.literal('mssql'),
    server: z.string().min(1).describe('host name or address; for a named instance also set instanceName'),
    instanceName: z.string().optional(),
    port: z.number().int().min(1).max(65535).optional(),
    database: z.string().min(1).default('softrestaurant11'),
    authentication: z.discriminatedUnion('type', [
      z.object({ type: z.literal('sql'), user: z.string().min(1), password: z.string() }),
      z.object({ type: z.literal('ntlm'), domain: z.string(), user: z.string().min(1), password: z.string() }),
    ]),
    encrypt: z.boolean().default(false),
    trustServerCertificate: z.boolean().default(true),
    poolSize: z.number().int().min(1).max(100).default(10),
    connectTimeoutMs: z.number().int().positive().optional(),
    requestTimeoutMs: z.number().int().positive().optional(),
    lockTimeoutMs,
  });

  /** The agent section field by field, before `gatewayUrl` and `gatewayUrls` are merged (agentConfigSchema). */
  const agentConfigFields = z.object({
    licenseKey,
    workerId: z.string().min(1).max(100).optional(),
    gatewayUrl: z.url().optional().describe('the gateway, or a load balancer in front of several'),
    gatewayUrls: z
      .array(z.url())
      .min(1)
      .optional()
      .describe('several gateways of one cluster, tried in turn: when one goes away the agent moves to the next (after gatewayUrl, if both are given)'),
    token: z.string().min(1),
    database: z.discriminatedUnion('dialect', [postgresDatabase, mssqlDatabase]),
    concurrency: z.number().int().min(1).max(64).default(8),
    printers: printerRuleConfig(),
    idempotencyRetentionHours: z.number().positive().default(24),
    events: z
      .object({ pollIntervalMs: z.number().int().min(100).max(60_000).default(2_000).describe('how often the POS is polled for changes (events)') })
      .default({ pollIntervalMs: 2_000 }),
    health: z
      .object({ host: z.string().default('127.0.0.1'), port: z.number().int().min(0).max(65535).default(8081) })
      .default({ host: '127.0.0.1', port: 8081 }),
    log: z
      .object({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info'),
        file: z.string().optional().describe('log to this file, rotated daily and at 10 MB, 14 files kept; stdout when absent'),
      })
      .default({ level: 'info' }),
    lockFile: z.string().optional().describe('one agent per machine; default branch-agent.lock beside the config file'),
    upgrades: z
      .object({
        publicKeyFile: z
          .string()
          .optional()
          .describe('the Ed25519 public key (`releases keygen`) a release must be signed with; without it no remote upgrade is accepted'),
        downloadDir: z.string().optional().describe('where releases are downloaded; default `downloads` beside the config file'),
        healthTimeoutSeconds: z
          .number()
          .int()
          .min(5)
          .max(600)
          .default(60)
          .describe('how long a new release has to become healthy before the installer rolls it back'),
      })
      .default({ healthTimeoutSeconds: 60 }),
  });

  /**
   * `gatewayUrl` comes out as the first gateway and `gatewayUrls` as all of them, so code that
   * needs one address (doctor, downloads) keeps reading `gatewayUrl`.
   */
  const agentConfigSchema = agentConfigFields
    .refine((c) => c.gatewayUrl !== undefined || c.gatewayUrls !== undefined, { message: 'gatewayUrl or gatewayUrls is required', path: ['gatewayUrl'] })
    .transform((c) => {
      // The refinement above guarantees at least one.
      const gatewayUrls = [...new Set([...(c.gatewayUrl ? [c.gatewayUrl] : []), ...(c.gatewayUrls ?? [])])];
      return { ...c, gatewayUrl: gatewayUrls[0]!, gatewayUrls };
    });

  const gatewayConfigSchema = z.object({
    host: z.string().default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8080),
    databaseUrl: z.string().optional().describe('PostgreSQL URL of the store; an embedded PostgreSQL in dataDir when absent'),
    dataDir: z.string().default('./gateway-data'),
    jobTimeoutMs: z.number().int().positive().default(30_000),
    printers: printerRuleConfig(),
    rateLimit: z.object({ perSecond: z.number().positive(), burst: z.number().positive() }).default({ perSecond: 20, burst: 40 }),
    failedAuthLimit: z
      .object({
        maxFailures: z.number().int().min(1).default(DEFAULT_FAILED_AUTH_LIMIT.maxFailures),
        maxFailuresAllAddresses: z.number().int().min(1).default(DEFAULT_FAILED_AUTH_LIMIT.maxFailuresAllAddresses),
        windowSeconds: z.number().int().min(1).default(DEFAULT_FAILED_AUTH_LIMIT.windowSeconds),
        trackedAddresses: z.number().int().min(1).default(DEFAULT_FAILED_AUTH_LIMIT.trackedAddresses),
      })
      .default(DEFAULT_FAILED_AUTH_LIMIT)
      .describe(
        'failed authentications a client address (maxFailures), and all addresses together (maxFailuresAllAddresses), may make per window before 429 rate_limited; a valid key is never refused',
      ),
    apiKeyCacheSize: z
      .number()
      .int()
      .min(1)
      .default(DEFAULT_API_KEY_CACHE_SIZE)
      .describe('API-key lookups (unknown keys too) and branch owners kept in memory, least recently used dropped first'),
    idempotencyRetentionHours: z
      .number()
      .positive()
      .default(DEFAULT_IDEMPOTENCY_RETENTION_HOURS)
      .describe('how long an Idempotency-Key and its answer are kept'),
    jobLogRetentionDays: z.number().positive().default(DEFAULT_JOB_LOG_RETENTION_DAYS).describe('how long job log entries are kept'),
    eventRetentionDays: z.number().positive().default(DEFAULT_EVENT_RETENTION_DAYS).describe('how long events stay readable in the feed'),
    webhookKey: z
      .string()
      .optional()
      .describe('32 bytes in base64 sealing the webhook signing secrets in the store (WEBHOOK_KEY); a key file in dataDir when absent'),
    webhooks: z
      .object({
        allowHttp: z.boolean().default(false).describe('accept plain http webhook URLs'),
        allowLoopback: z.boolean().default(false).describe('accept webhook URLs on loopback addresses'),
        allowPrivate: z.boolean().default(false).describe('accept webhook URLs on private networks; link-local addresses are never accepted'),
        timeoutMs: z.number().int().min(100).max(60_000).default(10_000).describe('how long one delivery attempt may take'),
      })
      .default({ allowHttp: false, allowLoopback: false, allowPrivate: false, timeoutMs: 10_000 }),
    purgeIntervalMinutes: z.number().positive().default(DEFAULT_PURGE_INTERVAL_MINUTES).describe('how often records past their retention are deleted'),
    trustProxy: z
      .array(z.string().refine(isAddressOrCidr, 'must be an IP address or CIDR, e.g. 10.0.0.5 or 10.0.0.0/24'), {
        error: 'must be a list of the proxies\' addresses or CIDRs, e.g. ["10.0.0.5"]; trusting any proxy would let a client choose its address',
      })
      .default([])
      .describe(
        'the proxies in front of the gateway, by address or CIDR, whose X-Forwarded-For names the client address (TRUST_PROXY, comma-separated); none by default',
      ),
    log: z.object({ level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info') }).default({ level: 'info' }),
    cluster: z
      .object({
        natsUrl: z
          .string()
          .min(1)
          .describe(
            'the NATS server(s) the instances route jobs over, e.g. nats://10.0.0.5:4222, with credentials nats://TOKEN@10.0.0.5:4222 or nats://USER:PASSWORD@… (NATS_URL)',
          ),
      })
      .optional()
      .describe('cluster mode: several instances share one PostgreSQL store (databaseUrl) and route jobs to the instance holding the agent'),
  });

  const configFileSchema = z.object({
    agent: agentConfigSchema.optional(),
    gateway: gatewayConfigSchema.optional(),
  });
  return { agentConfigFields, agentConfigSchema, gatewayConfigSchema, configFileSchema };
}

type ConfigSchemas = ReturnType<typeof configSchemas>;

export type AgentFileConfig = z.output<ConfigSchemas['agentConfigSchema']>;
export type GatewayFileConfig = z.output<ConfigSchemas['gatewayConfigSchema']>;
export type ConfigFile = z.output<ConfigSchemas['configFileSchema']>;
