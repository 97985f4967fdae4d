/** Reads config.json, applies environment overrides, and explains every problem in one message. */
import { readFileSync } from 'node:fs';

import { applyEnvironment } from './options.js';
import { configSchemas, type ConfigFile } from './schema.js';

export class ConfigError extends Error {}

/** The config file when no --config names one: BRANCH_AGENT_CONFIG, or config.json here. */
export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.BRANCH_AGENT_CONFIG ?? 'config.json';
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
