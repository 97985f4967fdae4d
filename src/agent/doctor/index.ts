/**
 * `branch-agent doctor`: checks, one by one, everything the agent needs at a branch and says
 * what to do about each problem: the configuration file, the POS database (reachable, login,
 * database), the Soft Restaurant tables and columns the agent works with, its own `ba_` tables,
 * the gateway, the agent token and, when named, printers. It only reads: nothing is written to
 * the POS database, and the gateway is never sent a hello (the running agent keeps its place).
 */
import { VERSION } from '../../version.js';
import { checkConfig } from './config-check.js';
import { checkDatabase } from './database-checks.js';
import { checkGateway } from './gateway-checks.js';
import { checkPrinter } from './printer-check.js';
import { DEFAULT_TIMEOUT_MS, skipped, type DoctorItem, type DoctorOptions, type DoctorReport } from './report.js';

export { classifyDatabaseError, explainDatabaseError } from './database-diagnosis.js';
export { parsePrinterOption } from './printer-check.js';
export { formatDoctorReport, type DoctorItem, type DoctorReport, type DoctorStatus } from './report.js';

export async function runDoctor(configPath: string, opts: DoctorOptions = {}): Promise<DoctorReport> {
  const items: DoctorItem[] = [];
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  const configItem = checkConfig(configPath, opts.env ?? process.env);
  items.push(configItem.item);
  const config = configItem.config;

  if (!config) {
    const reason = 'not checked: the configuration is not usable';
    items.push(
      skipped('database', 'POS database', true, reason),
      skipped('pos-schema', 'Soft Restaurant tables and columns', true, reason),
      skipped('pos-version', 'Soft Restaurant version', false, reason),
      skipped('agent-tables', 'Agent tables (ba_)', false, reason),
      skipped('gateway', 'Gateway', true, reason),
      skipped('token', 'Agent token', true, reason),
    );
  } else {
    const [databaseItems, gatewayItems] = await Promise.all([checkDatabase(config.database, timeoutMs), checkGateway(config, timeoutMs)]);
    items.push(...databaseItems, ...gatewayItems);
  }

  if (opts.printers && opts.printers.length > 0) {
    items.push(...(await Promise.all(opts.printers.map((p) => checkPrinter(p, Math.min(timeoutMs, 5_000))))));
  } else {
    items.push({
      id: 'printers',
      title: 'Printers',
      status: 'skip',
      essential: false,
      message: 'not configured here: printers are registered in the gateway, not in the agent config',
      advice: 'To test one from this machine: branch-agent doctor -c <config> --printer <host>[:<port>] (port 9100 by default).',
    });
  }

  return { configPath, agentVersion: VERSION, items, ok: items.every((i) => !(i.essential && i.status === 'fail')) };
}
