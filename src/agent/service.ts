/**
 * `branch-agent run`: the agent as an unattended service. One instance per machine (lock
 * file), health endpoints up from the first second, the POS database retried until it answers
 * (a branch server often boots the agent before SQL Server), and a graceful stop that lets
 * running jobs finish.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { AgentFileConfig } from '../config/schema.js';
import { isConnectionError } from '../database-errors.js';
import { startAgent, type Agent, type AgentConfig } from './agent.js';
import { explainDatabaseError } from './doctor/database-diagnosis.js';
import { backoffDelay } from './connection.js';
import { startHealthServer } from './health.js';
import { acquireInstanceLock } from './single-instance.js';

export interface RunningService {
  healthPort: number;
  /** The agent once the POS database answered. */
  agent(): Agent | undefined;
  stop(graceMs?: number): Promise<void>;
}

/** The config's upgrade settings, paths resolved beside the config file. */
async function upgradeSettings(config: AgentFileConfig, configPath: string): Promise<AgentConfig['upgrades']> {
  const [{ installerForThisAgent, installerRecord }, { resolveUpgradeSettings }] = await Promise.all([
    import('./installer/remote-upgrade.js'),
    import('./installer/upgrade-request.js'),
  ]);
  // The upgrade helper resolves them the same way (upgrade-request.ts): it looks for requests there.
  const { publicKeyFile, downloadDir, healthTimeoutSeconds } = resolveUpgradeSettings(config.upgrades, configPath);
  return {
    publicKey: publicKeyFile ? await readFile(publicKeyFile, 'utf8') : undefined,
    downloadDir,
    installer: installerForThisAgent(resolve(configPath), downloadDir, healthTimeoutSeconds),
    installerRecord,
  };
}

export async function runService(config: AgentFileConfig, configPath: string, log: Logger): Promise<RunningService> {
  const releaseLock = acquireInstanceLock(config.lockFile ?? join(dirname(configPath), 'branch-agent.lock'));
  let agent: Agent | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const health = await startHealthServer(
    {
      gatewayConnected: () => agent?.connection.connected ?? false,
      pingDatabase: () => (agent ? agent.pingDatabase() : Promise.reject(new Error('POS database not reached yet'))),
      jobsRunning: () => agent?.runner.running ?? 0,
    },
    config.health,
  ).catch((error: unknown) => {
    releaseLock();
    throw error;
  });

  let attempt = 0;
  const start = async (): Promise<void> => {
    try {
      agent = await startAgent({ ...config, upgrades: await upgradeSettings(config, configPath) }, log);
      if (attempt > 0) log.info({ attempts: attempt + 1 }, 'POS database reached; agent started');
      else log.info({ workerId: agent.workerId, posVersion: agent.pos.posVersion }, 'agent started');
    } catch (error) {
      if (!isConnectionError(error)) {
        log.error({ err: error }, 'agent cannot start');
        throw error;
      }
      if (attempt === 0) log.warn({ reason: explainDatabaseError(config.database, error) }, 'POS database unreachable; retrying until it answers');
      const delay = backoffDelay(attempt++, 1_000, 30_000);
      if (!stopped) retry = setTimeout(() => void start().catch(() => process.exit(1)), delay);
    }
  };
  await start();

  return {
    healthPort: health.port,
    agent: () => agent,
    async stop(graceMs = 10_000) {
      stopped = true;
      clearTimeout(retry);
      await agent?.stop(graceMs);
      await health.close();
      releaseLock();
    },
  };
}
