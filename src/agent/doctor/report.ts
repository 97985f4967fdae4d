/**
 * What `branch-agent doctor` reports: one item per check, and the plain-text form the command
 * prints. The checks themselves live beside this file, one module per thing checked.
 */

export type DoctorStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface DoctorItem {
  /** `config`, `database`, `pos-schema`, `pos-version`, `agent-tables`, `gateway`, `token`, `printers` or `printer:<host>:<port>`. */
  id: string;
  title: string;
  status: DoctorStatus;
  /** An essential check that fails means the agent cannot work; the others only warn. */
  essential: boolean;
  /** The verdict in one line. */
  message: string;
  /** Machine-readable cause of a failure or warning, e.g. `login-failed`, `database-missing`. */
  cause?: string;
  /** Supporting lines, e.g. missing columns table by table. */
  details?: string[];
  /** What to do about it. */
  advice?: string;
}

export interface DoctorReport {
  configPath: string;
  agentVersion: string;
  items: DoctorItem[];
  /** true when no essential check failed: the exit code of `branch-agent doctor` is 0. */
  ok: boolean;
}

export interface PrinterTarget {
  host: string;
  port: number;
  name?: string;
}

export interface DoctorOptions {
  /** Environment for the overrides of the config (AGENT_TOKEN, POS_DB_PASSWORD, GATEWAY_URL). */
  env?: NodeJS.ProcessEnv;
  /** Time allowed to each network check (default 10 s; SQL Server's own connectTimeoutMs wins). */
  timeoutMs?: number;
  /**
   * Printers to try (TCP connect). The agent's config names none: printers are registered in
   * the gateway. Only what is listed here is ever contacted.
   */
  printers?: PrinterTarget[];
}

export const DEFAULT_TIMEOUT_MS = 10_000;

export function skipped(id: string, title: string, essential: boolean, message: string): DoctorItem {
  return { id, title, status: 'skip', essential, message };
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** The message of an error and of the innermost error that caused it ("fetch failed: connect ECONNREFUSED …"). */
export function fullMessage(error: unknown): string {
  let root = error;
  for (let depth = 0; depth < 5; depth++) {
    const next: unknown = root instanceof AggregateError && root.errors.length > 0 ? root.errors[0] : (root as { cause?: unknown } | null)?.cause;
    if (!next) break;
    root = next;
  }
  const top = errorMessage(error);
  const inner = errorMessage(root);
  return root === error || top.includes(inner) ? top : `${top}: ${inner}`;
}

const MARK: Record<DoctorStatus, string> = { pass: '[ OK ]', warn: '[WARN]', fail: '[FAIL]', skip: '[SKIP]' };

/** Plain text (ASCII marks: Windows consoles), one block per check, the verdict last. */
export function formatDoctorReport(report: DoctorReport): string {
  const lines = [`branch-agent ${report.agentVersion} doctor: ${report.configPath}`, ''];
  for (const item of report.items) {
    lines.push(`${MARK[item.status]} ${item.title}: ${item.message}`);
    for (const detail of item.details ?? []) lines.push(`       ${detail}`);
    if (item.advice && (item.status === 'fail' || item.status === 'warn')) lines.push(`       What to do: ${item.advice}`);
  }
  const failed = report.items.filter((i) => i.status === 'fail');
  const essentialFailed = failed.filter((i) => i.essential);
  const warnings = report.items.filter((i) => i.status === 'warn').length + failed.length - essentialFailed.length;
  lines.push('');
  lines.push(
    essentialFailed.length > 0
      ? `Verdict: NOT READY: ${essentialFailed.length} essential check(s) failed (${essentialFailed.map((i) => i.title).join(', ')}).`
      : `Verdict: READY${warnings > 0 ? ` with ${warnings} warning(s)` : ''}: the agent can work with this configuration.`,
  );
  return lines.join('\n');
}
