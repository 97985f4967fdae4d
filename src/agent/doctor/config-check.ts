/** The doctor's first check: the configuration file loads and has an agent section. */
import { ConfigError, loadConfig } from '../../config/load.js';
import type { AgentFileConfig } from '../../config/schema.js';
import type { PosDbConfig } from '../../pos/db.js';
import type { DoctorItem } from './report.js';

export function checkConfig(configPath: string, env: NodeJS.ProcessEnv): { item: DoctorItem; config?: AgentFileConfig } {
  const base = { id: 'config', title: 'Configuration file', essential: true } as const;
  try {
    const agent = loadConfig(configPath, env).agent;
    if (!agent) {
      return {
        item: {
          ...base,
          status: 'fail',
          cause: 'no-agent-section',
          message: `${configPath} has no "agent" section`,
          advice: 'A branch server needs the "agent" section: copy it from config.example.json and fill in licenseKey, gatewayUrl, token and database.',
        },
      };
    }
    return {
      item: {
        ...base,
        status: 'pass',
        message: `${configPath} is valid: branch ${agent.licenseKey}, ${describeDatabase(agent.database)}, gateway ${agent.gatewayUrl}`,
      },
      config: agent,
    };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const [first, ...rest] = error.message.split('\n');
    const cause = /^Cannot read/.test(first ?? '') ? 'unreadable' : /is not valid JSON/.test(first ?? '') ? 'invalid-json' : 'invalid-config';
    const advice = {
      unreadable: `Check the path (-c) and that the service account may read the file. The installer keeps it at /etc/branch-agent/config.json (Linux) or %ProgramData%\\branch-agent\\config.json (Windows).`,
      'invalid-json': 'Fix the JSON syntax at the position shown (a missing comma or quote, a trailing comma, backslashes in Windows paths must be doubled).',
      'invalid-config': 'Correct each setting listed; config.example.json shows every setting with a valid value.',
    }[cause];
    return {
      item: { ...base, status: 'fail', cause, message: first ?? error.message, ...(rest.length > 0 ? { details: rest.map((l) => l.trim()) } : {}), advice },
    };
  }
}

export function describeDatabase(config: PosDbConfig): string {
  if (config.dialect === 'postgres') {
    try {
      const url = new URL(config.url);
      return `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`;
    } catch {
      return 'PostgreSQL (unparsable url)';
    }
  }
  const where = config.instanceName ? `${config.server}\\${config.instanceName}` : `${config.server}:${config.port ?? 1433}`;
  return `SQL Server ${where}, database ${config.database}`;
}
