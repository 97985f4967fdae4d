/**
 * The installer's view of the agent's configuration: written as a template the first time
 * (never overwritten after), the address of the agent's /healthz, and the secrets file beside
 * it (branch-agent.env: KEY=value lines) that the service and the migrations both read.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { agentDefaults } from '../../config/schema.js';

/** Writes the `agent` section of the release's config.example.json to `config`, if none exists. Answers whether it did. */
export function writeTemplateIfMissing(config: string, releaseDir: string): boolean {
  if (existsSync(config)) return false;
  mkdirSync(path.dirname(config), { recursive: true });
  const example = JSON.parse(readFileSync(path.join(releaseDir, 'config.example.json'), 'utf8')) as { agent: unknown };
  const tmp = `${config}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ agent: example.agent }, null, 2) + '\n', { mode: 0o640 });
  renameSync(tmp, config);
  return true;
}

/** http://<agent.health.host>:<port>/healthz as the installer can reach it (a wildcard host is asked on loopback). */
export function healthUrl(config: string): string {
  let health: { host?: string; port?: number } = {};
  try {
    health = (JSON.parse(readFileSync(config, 'utf8')) as { agent?: { health?: typeof health } }).agent?.health ?? {};
  } catch {
    // An unreadable config fails the migrations with a clear message; the default port stands here.
  }
  if (health.port === 0)
    throw new Error(`agent.health.port is 0 (a random port) in ${config}: the installer cannot check the agent's health. Set a fixed port.`);
  const defaults = agentDefaults().health;
  let host = health.host ?? defaults.host;
  if (host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${health.port ?? defaults.port}/healthz`;
}

export function envFileOf(config: string): string {
  return path.join(path.dirname(config), 'branch-agent.env');
}

/** The variables of branch-agent.env, when there is one. */
export function readEnvFile(config: string): Record<string, string> {
  const file = envFileOf(config);
  if (!existsSync(file)) return {};
  return parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
}
