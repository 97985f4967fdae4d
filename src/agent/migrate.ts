/**
 * `branch-agent migrate`: what the installer runs before it switches releases, so that a new
 * release never starts on tables it cannot use.
 */
import pino from 'pino';
import { ConfigError, loadConfig } from '../config/load.js';
import { openPos } from '../pos/runtime.js';
import { describeDatabase } from './doctor/config-check.js';
import { databaseAdvice, FAILURE_TEXT, probeDatabase } from './doctor/database-diagnosis.js';
import { DEFAULT_TIMEOUT_MS } from './doctor/report.js';

export interface MigrateResult {
  /** Agent migration files applied by this run (empty when the tables were up to date). */
  applied: string[];
  posVersion: string | null;
  database: string;
}

/**
 * `branch-agent migrate`: opens the POS database as the agent does (`openPos`: applies the `ba_`
 * migrations, reads the installed columns and the POS version) and closes it. A database that
 * cannot be reached fails at once with the doctor's explanation instead of a pool timeout.
 */
export async function migrateAgentTables(configPath: string, env: NodeJS.ProcessEnv = process.env, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<MigrateResult> {
  const config = loadConfig(configPath, env).agent;
  if (!config) throw new ConfigError(`${configPath} has no "agent" section`);
  const database = describeDatabase(config.database);
  const failure = await probeDatabase(config.database, timeoutMs);
  if (failure) {
    throw new Error(`POS database ${FAILURE_TEXT[failure.cause]} (${database}): ${failure.message}\n${databaseAdvice(config.database, failure, timeoutMs)}`);
  }
  let applied: string[] = [];
  // openPos reports what it applied in one log line; a logger that keeps that line is all it takes.
  const capture = pino(
    { level: 'info' },
    {
      write(line: string) {
        const entry = JSON.parse(line) as { applied?: unknown };
        if (Array.isArray(entry.applied)) applied = entry.applied.map(String);
      },
    },
  );
  const pos = await openPos({ ...config.database, poolSize: 1 }, capture);
  await pos.close();
  return { applied, posVersion: pos.posVersion, database };
}
