/**
 * config.json: one file for a branch server (`agent`) or a gateway host (`gateway`), validated
 * with clear messages. Every option is declared here once, with its default, its description
 * and the environment variable that overrides it (`env`): load.ts applies those, the modules
 * take their defaults from `gatewayDefaults()` / `agentDefaults()` / `posDatabase()`, and
 * docs/configuration.md is generated from it (`npm run docs:config`).
 */
import { z } from 'zod';
import { licenseKey } from '../protocol/common.js';
import { isAddressOrCidr } from './address-or-cidr.js';
import { printerRuleConfig } from './printer-rule-config.js';

/** The environment variable that overrides an option, kept with the option (options.ts reads it). */
const fromEnv = (name: string) => ({ env: name });

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
    .default(10_000)
    .describe(
      'how long a statement waits for records a terminal holds before the job answers pos_busy: twice the interval of SQL Server’s deadlock monitor, so a deadlock is still found and retried first',
    );
  const poolSize = z.number().int().min(1).max(100).default(10).describe('connections the agent keeps open to the POS database');

  const postgresDatabase = z.object({
    dialect: z.literal('postgres').describe('`postgres` (the demo and tests) or `mssql` (a branch’s SQL Server)'),
    url: z.string().min(1).describe('PostgreSQL connection URL of the POS database'),
    poolSize,
    lockTimeoutMs,
  });

  const authentication = {
    type: z.literal('sql').describe('`sql` (a SQL Server login) or `ntlm` (a Windows account)'),
    user: z.string().min(1).describe('the login or Windows account'),
    password: z.string().describe('its password').meta(fromEnv('POS_DB_PASSWORD')),
  };
  const mssqlDatabase = z.object({
    dialect: z.literal('mssql'),
    server: z.string().min(1).describe('host name or address; for a named instance also set instanceName'),
    instanceName: z.string().optional().describe('a named instance (`SERVER\\INSTANCE`), found through SQL Browser'),
    port: z.number().int().min(1).max(65535).optional().describe('TCP port; 1433 unless a named instance says otherwise'),
    database: z.string().min(1).default('softrestaurant11').describe('the Soft Restaurant database'),
    authentication: z
      .discriminatedUnion('type', [
        z.object(authentication),
        z.object({ ...authentication, type: z.literal('ntlm'), domain: z.string().describe('the Windows domain (ntlm)') }),
      ])
      .describe('`{type: "sql", user, password}` or `{type: "ntlm", domain, user, password}`'),
    encrypt: z.boolean().default(false).describe('encrypt the connection (TLS)'),
    trustServerCertificate: z
      .boolean()
      .default(true)
      .describe('accept the server’s certificate without checking it (most branch servers have a self-signed one)'),
    poolSize,
    connectTimeoutMs: z.number().int().positive().default(15_000).describe('how long connecting to the server may take'),
    requestTimeoutMs: z.number().int().positive().default(30_000).describe('how long one statement may run'),
    lockTimeoutMs,
  });

  /** The agent section field by field, before `gatewayUrl` and `gatewayUrls` are merged (agentConfigSchema). */
  const agentConfigFields = z.object({
    licenseKey: licenseKey.describe('the branch’s Soft Restaurant license key, which names it to the gateway'),
    workerId: z.string().min(1).max(100).optional().describe('the name the agent gives the gateway; `<host name>-<licenseKey>` when absent'),
    gatewayUrl: z.url().optional().describe('the gateway, or a load balancer in front of several').meta(fromEnv('GATEWAY_URL')),
    gatewayUrls: z
      .array(z.url())
      .min(1)
      .optional()
      .describe('several gateways of one cluster, tried in turn: when one goes away the agent moves to the next (after gatewayUrl, if both are given)'),
    token: z.string().min(1).describe('the agent token the gateway issued for this branch').meta(fromEnv('AGENT_TOKEN')),
    database: z.discriminatedUnion('dialect', [postgresDatabase, mssqlDatabase]).describe('the POS database'),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(8)
      .describe('jobs the agent runs at once, besides two that print (kitchen tickets, test pages, customer tickets)'),
    printers: printerRuleConfig(),
    idempotencyRetentionHours: z.number().positive().default(24).describe('how long the agent remembers a job it ran, so a job delivered twice runs once'),
    events: z
      .object({ pollIntervalMs: z.number().int().min(100).max(60_000).default(2_000).describe('how often the POS is polled for changes (events)') })
      .prefault({}),
    health: z
      .object({
        host: z.string().default('127.0.0.1').describe('address of the health endpoint (`/healthz`) the installer checks'),
        port: z.number().int().min(0).max(65535).default(8081).describe('port of the health endpoint'),
      })
      .prefault({}),
    log: z
      .object({
        level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace']).default('info').describe('the least severe log lines written'),
        file: z.string().optional().describe('log to this file, rotated daily and at 10 MB, 14 files kept; stdout when absent'),
      })
      .prefault({}),
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
      .prefault({}),
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
    host: z.string().default('127.0.0.1').describe('address the HTTP server listens on').meta(fromEnv('HOST')),
    port: z.number().int().min(0).max(65535).default(8080).describe('port the HTTP server listens on (0: any free port)').meta(fromEnv('PORT')),
    databaseUrl: z
      .string()
      .optional()
      .describe('PostgreSQL URL of the store; an embedded PostgreSQL in dataDir when absent')
      .meta(fromEnv('GATEWAY_DATABASE_URL')),
    publicUrl: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        'the address clients reach the gateway at (e.g. https://api.example.com), the base of every problem’s `type`; the request’s own host and scheme when absent',
      )
      .meta(fromEnv('PUBLIC_URL')),
    dataDir: z.string().default('./gateway-data').describe('the embedded PostgreSQL’s data and the webhook key file'),
    jobTimeoutMs: z.number().int().positive().default(30_000).describe('how long the gateway waits for an agent to answer a job before 504 agent_timeout'),
    printers: printerRuleConfig(),
    rateLimit: z
      .object({
        perSecond: z.number().positive().default(20).describe('requests per second an API key may make, on average'),
        burst: z.number().positive().default(40).describe('requests an API key may make at once'),
      })
      .prefault({}),
    failedAuthLimit: z
      .object({
        maxFailures: z.number().int().min(1).default(20).describe('failed authentications per window from one client address'),
        maxFailuresAllAddresses: z.number().int().min(1).default(1_000).describe('failed authentications per window from all addresses together'),
        windowSeconds: z.number().int().min(1).default(60).describe('the window, in seconds'),
        trackedAddresses: z.number().int().min(1).default(10_000).describe('client addresses counted at once, least recently seen dropped first'),
      })
      .prefault({})
      .describe(
        'failed authentications a client address, and all addresses together, may make per window before 429 rate_limited; a valid key is never refused',
      ),
    apiKeyCacheSize: z
      .number()
      .int()
      .min(1)
      .default(10_000)
      .describe('API-key lookups (unknown keys too) and branch owners kept in memory, least recently used dropped first'),
    idempotencyRetentionHours: z.number().positive().default(24).describe('how long an Idempotency-Key and its answer are kept'),
    jobLogRetentionDays: z.number().positive().default(30).describe('how long job log entries are kept'),
    // Webhook deliveries give up after 24 h, well within it.
    eventRetentionDays: z.number().positive().default(7).describe('how long events stay readable in the feed'),
    webhookKey: z
      .string()
      .optional()
      .describe('32 bytes in base64 sealing the webhook signing secrets in the store; a key file in dataDir when absent')
      .meta(fromEnv('WEBHOOK_KEY')),
    webhooks: z
      .object({
        allowHttp: z.boolean().default(false).describe('accept plain http webhook URLs'),
        allowLoopback: z.boolean().default(false).describe('accept webhook URLs on loopback addresses'),
        allowPrivate: z.boolean().default(false).describe('accept webhook URLs on private networks; link-local addresses are never accepted'),
        timeoutMs: z.number().int().min(100).max(60_000).default(10_000).describe('how long one delivery attempt may take'),
      })
      .prefault({}),
    purgeIntervalMinutes: z.number().positive().default(60).describe('how often records past their retention are deleted'),
    trustProxy: z
      .array(z.string().refine(isAddressOrCidr, 'must be an IP address or CIDR, e.g. 10.0.0.5 or 10.0.0.0/24'), {
        error: 'must be a list of the proxies\' addresses or CIDRs, e.g. ["10.0.0.5"]; trusting any proxy would let a client choose its address',
      })
      .default([])
      .describe(
        'the proxies in front of the gateway, by address or CIDR, whose X-Forwarded-For names the client address (the environment variable: comma-separated); none by default',
      )
      .meta(fromEnv('TRUST_PROXY')),
    log: z
      .object({
        level: z
          .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace'])
          .default('info')
          .describe('the least severe log lines written')
          .meta(fromEnv('LOG_LEVEL')),
      })
      .prefault({}),
    cluster: z
      .object({
        natsUrl: z
          .string()
          .min(1)
          .describe(
            'the NATS server(s) the instances route jobs over, e.g. nats://10.0.0.5:4222, with credentials nats://TOKEN@10.0.0.5:4222 or nats://USER:PASSWORD@…',
          )
          .meta(fromEnv('NATS_URL')),
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

/** The gateway's settings when nothing sets them: every default, from the schema. */
export function gatewayDefaults(): GatewayFileConfig {
  return configSchemas().gatewayConfigSchema.parse({});
}

/** The agent's settings that have defaults, from the schema. */
export function agentDefaults() {
  const fields = configSchemas().agentConfigFields.shape;
  return z
    .object({
      concurrency: fields.concurrency,
      printers: fields.printers,
      idempotencyRetentionHours: fields.idempotencyRetentionHours,
      events: fields.events,
      health: fields.health,
      log: fields.log,
      upgrades: fields.upgrades,
    })
    .parse({});
}

export type PosDatabaseConfig = AgentFileConfig['database'];

/** A POS database section with every default filled in, as the agent reads one from its config. */
export function posDatabase(section: z.input<ConfigSchemas['agentConfigFields']>['database']): PosDatabaseConfig {
  return configSchemas().agentConfigFields.shape.database.parse(section);
}

export type AgentFileConfig = z.output<ConfigSchemas['agentConfigSchema']>;
export type GatewayFileConfig = z.output<ConfigSchemas['gatewayConfigSchema']>;
export type ConfigFile = z.output<ConfigSchemas['configFileSchema']>;
