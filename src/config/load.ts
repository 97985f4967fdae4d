/** Reads config.json, applies environment overrides, and explains every problem in one message. */
import { readFileSync } from 'node:fs';

import { configSchemas, type ConfigFile } from './schema.js';

export class ConfigError extends Error {}

/** Environment variables that override the file (secrets are better kept out of it). */
function applyEnvironment(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const agent = raw.agent as Record<string, unknown> | undefined;
  const gateway = raw.gateway as Record<string, unknown> | undefined;
  if (agent) {
    if (env.AGENT_TOKEN) agent.token = env.AGENT_TOKEN;
    if (env.GATEWAY_URL) agent.gatewayUrl = env.GATEWAY_URL;
    const database = agent.database as { authentication?: Record<string, unknown> } | undefined;
    if (env.POS_DB_PASSWORD && database?.authentication) database.authentication.password = env.POS_DB_PASSWORD;
  }
  if (gateway) {
    if (env.GATEWAY_DATABASE_URL) gateway.databaseUrl = env.GATEWAY_DATABASE_URL;
    if (env.HOST) gateway.host = env.HOST;
    if (env.PORT) gateway.port = Number(env.PORT);
    if (env.WEBHOOK_KEY) gateway.webhookKey = env.WEBHOOK_KEY;
    if (env.TRUST_PROXY) gateway.trustProxy = proxyList(env.TRUST_PROXY);
    if (env.NATS_URL) gateway.cluster = { ...(gateway.cluster as object | undefined), natsUrl: env.NATS_URL };
  }
  return raw;
}

/** TRUST_PROXY: addresses or CIDRs separated by commas (the demo reads it too). */
export function proxyList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function parseConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env): ConfigFile {
  const parsed = configSchemas().configFileSchema.safeParse(applyEnvironment(structuredClone((raw ?? {}) as Record<string, unknown>), env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  - ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ConfigError(`The configuration is not valid:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

export function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read the configuration file ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseConfig(raw, env);
}
