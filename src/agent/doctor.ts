/**
 * `branch-agent doctor`: checks, one by one, everything the agent needs at a branch and says
 * what to do about each problem: the configuration file, the POS database (reachable, login,
 * database), the Soft Restaurant tables and columns the agent works with, its own `ba_` tables,
 * the gateway, the agent token and, when named, printers. It only reads: nothing is written to
 * the POS database, and the gateway is never sent a hello (the running agent keeps its place).
 *
 * Also `branch-agent migrate` (`migrateAgentTables`): what the installer runs before it switches
 * releases, so that a new release never starts on tables it cannot use.
 */
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import pg from 'pg';
import pino from 'pino';
import * as tedious from 'tedious';
import WebSocket from 'ws';
import { errorCodes, NETWORK_CODES } from '../database-errors.js';
import { ConfigError, loadConfig } from '../config/load.js';
import type { AgentFileConfig } from '../config/schema.js';
import { installedTables, readInstalledSchema } from '../pos/columns.js';
import { createPosDb, tediousConfig, type PosDbConfig } from '../pos/db.js';
import { type PosDialectName } from '../pos/sql-dialect.js';
import { type PosDb } from '../pos/schema.js';
import { agentMigrationsDir, appliedVersions, readMigrations, SQL_DIR } from '../pos/migrations.js';
import { openPos, POS_TABLES, readPosVersion } from '../pos/runtime.js';
import { AGENT_PATH } from '../protocol/messages.js';
import { VERSION } from '../version.js';

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

const DEFAULT_TIMEOUT_MS = 10_000;

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

function skipped(id: string, title: string, essential: boolean, message: string): DoctorItem {
  return { id, title, status: 'skip', essential, message };
}

// ---------------------------------------------------------------------------------------------
// Configuration

function checkConfig(configPath: string, env: NodeJS.ProcessEnv): { item: DoctorItem; config?: AgentFileConfig } {
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
    return { item: { ...base, status: 'pass', message: `${configPath} is valid: branch ${agent.licenseKey}, ${describeDatabase(agent.database)}, gateway ${agent.gatewayUrl}` }, config: agent };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const [first, ...rest] = error.message.split('\n');
    const cause = /^Cannot read/.test(first ?? '') ? 'unreadable' : /is not valid JSON/.test(first ?? '') ? 'invalid-json' : 'invalid-config';
    const advice = {
      unreadable: `Check the path (-c) and that the service account may read the file. The installer keeps it at /etc/branch-agent/config.json (Linux) or %ProgramData%\\branch-agent\\config.json (Windows).`,
      'invalid-json': 'Fix the JSON syntax at the position shown (a missing comma or quote, a trailing comma, backslashes in Windows paths must be doubled).',
      'invalid-config': 'Correct each setting listed; config.example.json shows every setting with a valid value.',
    }[cause];
    return { item: { ...base, status: 'fail', cause, message: first ?? error.message, ...(rest.length > 0 ? { details: rest.map((l) => l.trim()) } : {}), advice } };
  }
}

function describeDatabase(config: PosDbConfig): string {
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

// ---------------------------------------------------------------------------------------------
// POS database

export type DatabaseFailure = 'host-unreachable' | 'login-failed' | 'database-missing' | 'other';

export interface ClassifiedDatabaseError {
  cause: DatabaseFailure;
  /** A finer reason: `refused`, `name`, `timeout`, `instance`, `password-expired`, `account-disabled`. */
  reason?: string;
  message: string;
}

/**
 * Maps a failed connection attempt (pg, tedious or the socket below them) to what went wrong.
 * `serverErrors` are the SQL Server error numbers received during the login (tedious reports
 * only the last one in the error itself).
 */
export function classifyDatabaseError(error: unknown, serverErrors: number[] = []): ClassifiedDatabaseError {
  const message = fullMessage(error);
  const codes = errorCodes(error);
  // PostgreSQL SQLSTATEs.
  if (codes.includes('3D000')) return { cause: 'database-missing', message };
  if (codes.includes('28P01') || codes.includes('28000')) return { cause: 'login-failed', message };
  // SQL Server: 4060 "Cannot open database", then 18456 "Login failed for user".
  if (codes.includes('ELOGIN')) {
    if (serverErrors.includes(4060) || /Cannot open database/i.test(message)) return { cause: 'database-missing', message };
    if (serverErrors.includes(18488) || serverErrors.includes(18487)) return { cause: 'login-failed', reason: 'password-expired', message };
    if (serverErrors.includes(18470)) return { cause: 'login-failed', reason: 'account-disabled', message };
    return { cause: 'login-failed', message };
  }
  if (codes.includes('EINSTLOOKUP')) return { cause: 'host-unreachable', reason: 'instance', message };
  for (const code of codes) {
    if (NETWORK_CODES[code]) return { cause: 'host-unreachable', reason: NETWORK_CODES[code], message };
  }
  if (/timeout|timed out/i.test(message)) return { cause: 'host-unreachable', reason: 'timeout', message };
  return { cause: 'other', message };
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** The message of an error and of the innermost error that caused it ("fetch failed: connect ECONNREFUSED …"). */
function fullMessage(error: unknown): string {
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

/** One line for a log or a console: why the POS database refused, and what to do about it. */
export function explainDatabaseError(config: PosDbConfig, error: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): string {
  const failure = classifyDatabaseError(error);
  return `${failure.message} — ${databaseAdvice(config, failure, timeoutMs)}`;
}

function databaseAdvice(config: PosDbConfig, failure: ClassifiedDatabaseError, timeoutMs: number): string {
  if (config.dialect === 'postgres') {
    switch (failure.cause) {
      case 'host-unreachable':
        return failure.reason === 'name'
          ? 'The host name in agent.database.url does not resolve: correct it.'
          : failure.reason === 'timeout'
            ? `No answer within ${timeoutMs / 1000} s: check the host and port in agent.database.url and any firewall on the way.`
            : 'Nothing accepts connections at the host and port of agent.database.url: start PostgreSQL or correct the URL.';
      case 'login-failed':
        return 'PostgreSQL refused the user or password in agent.database.url: correct them (percent-encode special characters in the password).';
      case 'database-missing':
        return 'The server answers but has no database of that name: correct the database name at the end of agent.database.url.';
      default:
        return 'Check agent.database.url and the PostgreSQL server log.';
    }
  }
  const target = config.instanceName ? `${config.server}\\${config.instanceName}` : `${config.server}:${config.port ?? 1433}`;
  switch (failure.cause) {
    case 'host-unreachable':
      switch (failure.reason) {
        case 'instance':
          return (
            `The instance "${config.instanceName}" was not found on ${config.server} through the SQL Server Browser (UDP 1434): ` +
            'check agent.database.instanceName (Soft Restaurant installs NATIONALSOFT by default), start the "SQL Server Browser" service, ' +
            'or set agent.database.port to the fixed TCP port of the instance instead of instanceName.'
          );
        case 'name':
          return `The host name "${config.server}" does not resolve: correct agent.database.server (use localhost when SQL Server runs on this machine).`;
        case 'timeout':
          return (
            `No answer from ${target} within the connect timeout: a firewall blocks the port, the address is wrong, or the server is off. ` +
            'Check agent.database.server/port and the Windows firewall rule for SQL Server.'
          );
        default:
          return (
            `Nothing accepts connections at ${target}: start the SQL Server service of the POS (services.msc), ` +
            'enable TCP/IP for the instance in SQL Server Configuration Manager, and check agent.database.server/instanceName/port.'
          );
      }
    case 'login-failed': {
      const user = config.authentication.user;
      if (failure.reason === 'password-expired') return `The password of "${user}" has expired or must be changed: change it in SQL Server, then in the config (or POS_DB_PASSWORD).`;
      if (failure.reason === 'account-disabled') return `The login "${user}" is disabled in SQL Server: enable it or use another login.`;
      return (
        `SQL Server refused the login "${user}": check agent.database.authentication.user and password (the POS_DB_PASSWORD environment variable overrides the file)` +
        (config.authentication.type === 'sql' ? ', and that SQL Server accepts SQL Server authentication (mixed mode).' : ' and the domain.')
      );
    }
    case 'database-missing':
      return (
        `The login works but the database "${config.database}" does not exist or "${config.authentication.user}" may not open it: ` +
        'correct agent.database.database to the database the POS uses (see SQL Server Management Studio) or map the login to it.'
      );
    default:
      return `Check agent.database and the SQL Server error log on ${config.server}.`;
  }
}

const FAILURE_TEXT: Record<DatabaseFailure, string> = {
  'host-unreachable': 'server not reachable',
  'login-failed': 'login failed',
  'database-missing': 'database missing',
  other: 'connection failed',
};

/** One connection attempt that reports exactly why it failed, without pools or retries. */
export async function probeDatabase(config: PosDbConfig, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ClassifiedDatabaseError | null> {
  if (config.dialect === 'postgres') {
    const client = new pg.Client({ connectionString: config.url, connectionTimeoutMillis: timeoutMs });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      return null;
    } catch (error) {
      return classifyDatabaseError(error);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  const base = tediousConfig(config);
  const connection = new tedious.Connection({
    ...base,
    options: { ...base.options, connectTimeout: config.connectTimeoutMs ?? Math.max(timeoutMs, 15_000), maxRetriesOnTransientErrors: 0 },
  });
  const serverErrors: number[] = [];
  connection.on('errorMessage', (token: { number: number }) => serverErrors.push(token.number));
  connection.on('error', () => undefined);
  return new Promise((resolve) => {
    connection.connect((error) => {
      connection.close();
      resolve(error ? classifyDatabaseError(error, serverErrors) : null);
    });
  });
}

async function checkDatabase(config: PosDbConfig, timeoutMs: number): Promise<DoctorItem[]> {
  const where = describeDatabase(config);
  const failure = await probeDatabase(config, timeoutMs);
  if (failure) {
    const reason = 'not checked: the POS database is not reachable';
    return [
      {
        id: 'database',
        title: 'POS database',
        status: 'fail',
        essential: true,
        cause: failure.cause,
        message: `${FAILURE_TEXT[failure.cause]}: ${where}: ${failure.message}`,
        advice: databaseAdvice(config, failure, timeoutMs),
      },
      skipped('pos-schema', 'Soft Restaurant tables and columns', true, reason),
      skipped('pos-version', 'Soft Restaurant version', false, reason),
      skipped('agent-tables', 'Agent tables (ba_)', false, reason),
    ];
  }

  const items: DoctorItem[] = [{ id: 'database', title: 'POS database', status: 'pass', essential: true, message: `connected: ${where}` }];
  const { db, close } = createPosDb({ ...config, poolSize: 1 });
  try {
    const present = await installedTables(db, config.dialect, ['ba_schema_version', ...POS_TABLES]);
    items.push(await checkSchema(db, config.dialect, present));
    items.push(await checkPosVersion(db, present));
    items.push(await checkAgentTables(db, config.dialect, present));
  } catch (error) {
    items.push({
      id: 'pos-schema',
      title: 'Soft Restaurant tables and columns',
      status: 'fail',
      essential: true,
      cause: 'query-failed',
      message: `could not read the database catalog: ${errorMessage(error)}`,
      advice: 'The login needs permission to read INFORMATION_SCHEMA and the POS tables (db_datareader at least, db_owner to create the agent tables).',
    });
  } finally {
    await close();
  }
  return items;
}


interface ExpectedColumn {
  table: string;
  column: string;
}

/** The columns of the reference Soft Restaurant 11 schema (sql/reference/*.tsv) for the tables the agent uses. */
export function expectedColumns(): ExpectedColumn[] {
  const tables = new Set<string>(POS_TABLES);
  return ['softrestaurant11-columns.tsv', 'settings-columns.tsv'].flatMap((file) =>
    readTsv(file)
      .map(([table, column]) => ({ table: table!, column: column! }))
      .filter((c) => tables.has(c.table)),
  );
}

/**
 * Columns whose absence is fatal: primary keys (the agent locates and locks rows by them) and
 * the settings it reads on every start and every write. Every other column of the reference
 * may be missing on an older or newer Soft Restaurant: the agent leaves it out when it writes.
 */
export function essentialColumns(): Set<string> {
  const keys = readTsv('softrestaurant11-primary-keys.tsv').map(([table, column]) => `${table}.${column}`);
  const settings = readTsv('settings-columns.tsv').map(([table, column]) => `${table}.${column}`);
  return new Set([...keys, ...settings]);
}

function readTsv(file: string): string[][] {
  return readFileSync(`${SQL_DIR}reference/${file}`, 'utf8')
    .split(/\r?\n/)
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => line.split('\t'));
}

async function checkSchema(db: PosDb, dialect: PosDialectName, present: Set<string>): Promise<DoctorItem> {
  const base = { id: 'pos-schema', title: 'Soft Restaurant tables and columns', essential: true } as const;
  const missingTables = POS_TABLES.filter((t) => !present.has(t));
  const schema = await readInstalledSchema(db, dialect, POS_TABLES.filter((t) => present.has(t)));
  const essential = essentialColumns();
  const missing = new Map<string, string[]>();
  let fatalColumns = 0;
  for (const { table, column } of expectedColumns()) {
    if (!present.has(table) || schema.has(table as (typeof POS_TABLES)[number], column)) continue;
    const fatal = essential.has(`${table}.${column}`);
    if (fatal) fatalColumns++;
    missing.set(table, [...(missing.get(table) ?? []), fatal ? `${column} (required)` : column]);
  }
  const missingCount = [...missing.values()].reduce((n, cols) => n + cols.length, 0);
  const details = [
    ...(missingTables.length > 0 ? [`missing tables: ${missingTables.join(', ')}`] : []),
    ...[...missing].map(([table, cols]) => `${table}: ${cols.join(', ')}`),
  ];

  if (missingTables.length > 0 || fatalColumns > 0) {
    return {
      ...base,
      status: 'fail',
      cause: missingTables.length > 0 ? 'tables-missing' : 'columns-missing',
      message:
        missingTables.length > 0
          ? `${missingTables.length} of the ${POS_TABLES.length} tables the agent uses are missing; the agent will not start`
          : `${fatalColumns} required column(s) missing; the agent cannot work with this database`,
      details,
      advice:
        'This does not look like a Soft Restaurant database (or the login sees another schema): check agent.database points at the POS database ' +
        '(e.g. softrestaurant11) and that the login\'s default schema is dbo.',
    };
  }
  if (missingCount > 0) {
    return {
      ...base,
      status: 'warn',
      cause: 'columns-missing',
      message: `all ${POS_TABLES.length} tables present; ${missingCount} column(s) of Soft Restaurant 11 are not installed here (not fatal)`,
      details,
      advice:
        'Normal for other Soft Restaurant versions: the agent leaves these columns out when it writes. ' +
        'Operations that need one of them answer with an error; report the list if a feature is missing.',
    };
  }
  return { ...base, status: 'pass', message: `all ${POS_TABLES.length} tables and every expected column present` };
}

async function checkPosVersion(db: PosDb, present: Set<string>): Promise<DoctorItem> {
  const base = { id: 'pos-version', title: 'Soft Restaurant version', essential: false } as const;
  if (!present.has('configuracion')) return { ...base, status: 'skip', message: 'not checked: the configuracion table is missing' };
  try {
    const version = await readPosVersion(db);
    if (!version) {
      return {
        ...base,
        status: 'warn',
        cause: 'version-unknown',
        message: 'configuracion.versiondb is empty (or the table has no row)',
        advice: 'The agent works without it but reports the POS version as unknown to the gateway; a configured Soft Restaurant always has it.',
      };
    }
    return { ...base, status: 'pass', message: `configuracion.versiondb = ${version}` };
  } catch (error) {
    return { ...base, status: 'warn', cause: 'version-unreadable', message: `configuracion.versiondb unreadable: ${errorMessage(error)}` };
  }
}

async function checkAgentTables(db: PosDb, dialect: PosDialectName, present: Set<string>): Promise<DoctorItem> {
  const base = { id: 'agent-tables', title: 'Agent tables (ba_)', essential: false } as const;
  const files = readMigrations(agentMigrationsDir(dialect), dialect).filter((m) => m.version > 0);
  let done = new Set<number>();
  if (present.has('ba_schema_version')) {
    done = await appliedVersions(db, 'ba_schema_version');
  }
  const pending = files.filter((m) => !done.has(m.version)).map((m) => m.name);
  const newer = [...done].filter((v) => !files.some((m) => m.version === v));
  const note = newer.length > 0 ? ` (the database also has agent migrations ${newer.join(', ')} from a newer release; this one ignores them)` : '';
  if (pending.length > 0) {
    return {
      ...base,
      status: 'warn',
      cause: 'migrations-pending',
      message: `${pending.length} agent migration(s) not applied yet: ${pending.join(', ')}${note}`,
      advice: 'Applied automatically when the agent starts; run `branch-agent migrate -c <config>` to apply them now (the login needs CREATE TABLE permission).',
    };
  }
  return { ...base, status: 'pass', message: `up to date (${files.length} migration(s))${note}` };
}

// ---------------------------------------------------------------------------------------------
// Gateway and token

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_NOT_YET_VALID',
]);

async function checkGateway(config: AgentFileConfig, timeoutMs: number): Promise<DoctorItem[]> {
  const base = { id: 'gateway', title: 'Gateway', essential: true } as const;
  const healthUrl = new URL('/healthz', config.gatewayUrl);
  let item: DoctorItem;
  const started = Date.now();
  try {
    const res = await fetch(healthUrl, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json().catch(() => null)) as { version?: unknown } | null;
    item = res.ok
      ? { ...base, status: 'pass', message: `${healthUrl.origin} answered in ${Date.now() - started} ms${typeof body?.version === 'string' ? ` (gateway ${body.version})` : ''}` }
      : {
          ...base,
          status: 'fail',
          cause: 'bad-answer',
          message: `${healthUrl.href} answered HTTP ${res.status}`,
          advice: 'Something answers at agent.gatewayUrl but it is not a healthy gateway: check the URL (scheme, host, port) and any proxy in between.',
        };
  } catch (error) {
    const codes = errorCodes(error);
    const timedOut = (error as Error)?.name === 'TimeoutError' || codes.includes('UND_ERR_CONNECT_TIMEOUT');
    const tls = codes.find((c) => TLS_CODES.has(c));
    item = {
      ...base,
      status: 'fail',
      cause: tls ? 'tls' : 'unreachable',
      message: `${healthUrl.origin} not reachable: ${timedOut ? `no answer within ${timeoutMs / 1000} s` : fullMessage(error)}`,
      advice: tls
        ? `The gateway's TLS certificate is not trusted here (${tls}): check the machine's date and time, and whether a proxy or antivirus inspects HTTPS.`
        : codes.includes('ENOTFOUND') || codes.includes('EAI_AGAIN')
          ? `The host name of agent.gatewayUrl does not resolve: check the URL and this machine's DNS.`
          : codes.includes('ECONNREFUSED')
            ? 'The host answers but nothing accepts connections on that port: check the port in agent.gatewayUrl, or the gateway is down. The running agent keeps retrying by itself.'
            : 'Check agent.gatewayUrl, this machine\'s internet access and the firewall (outbound HTTPS). The running agent keeps retrying by itself.',
    };
  }
  if (item.status !== 'pass') return [item, skipped('token', 'Agent token', true, 'not checked: the gateway is not reachable')];
  return [item, await checkToken(config, timeoutMs)];
}

/** Opens the agent WebSocket with the token and closes it as soon as the gateway accepts it (no hello). */
async function checkToken(config: AgentFileConfig, timeoutMs: number): Promise<DoctorItem> {
  const base = { id: 'token', title: 'Agent token', essential: true } as const;
  const url = new URL(AGENT_PATH, config.gatewayUrl.replace(/^http/, 'ws'));
  return new Promise<DoctorItem>((resolve) => {
    let settled = false;
    const settle = (item: DoctorItem) => {
      if (settled) return;
      settled = true;
      resolve(item);
    };
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${config.token}` }, handshakeTimeout: timeoutMs });
    ws.on('open', () => {
      settle({ ...base, status: 'pass', message: `accepted by the gateway for ${url.origin}${AGENT_PATH}` });
      ws.close(1000, 'doctor');
    });
    ws.on('unexpected-response', (req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      req.destroy();
      settle(
        status === 401
          ? {
              ...base,
              status: 'fail',
              cause: 'token-refused',
              message: 'the gateway refused the token (HTTP 401)',
              advice:
                `Put the token printed by \`branch-agent keys add-branch -k ${config.licenseKey}\` in agent.token (or AGENT_TOKEN); ` +
                'running add-branch again issues a new token and invalidates the old one.',
            }
          : {
              ...base,
              status: 'fail',
              cause: status === 503 ? 'gateway-unavailable' : 'bad-answer',
              message: `the gateway answered HTTP ${status} to the agent connection`,
              advice: status === 503 ? 'The gateway could not check the token (its store is down): try again later.' : `Check that agent.gatewayUrl is the gateway itself (it serves ${AGENT_PATH}).`,
            },
      );
    });
    ws.on('error', (error) =>
      settle({ ...base, status: 'fail', cause: 'unreachable', message: `WebSocket to ${url.origin}${AGENT_PATH} failed: ${errorMessage(error)}`, advice: 'A proxy may block WebSocket upgrades: allow them to the gateway.' }),
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Printers

/** `host`, `host:port` or `[v6]:port`; the port defaults to 9100 (raw printing). */
export function parsePrinterOption(value: string): PrinterTarget {
  const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(value.trim());
  const port = Number(m?.[3] ?? 9100);
  if (!m || port < 1 || port > 65535) throw new Error(`not a printer address: "${value}" (expected host or host:port)`);
  return { host: (m[1] ?? m[2])!, port };
}

export async function checkPrinter(target: PrinterTarget, timeoutMs: number): Promise<DoctorItem> {
  const label = `${target.name ? `${target.name} ` : ''}${target.host}:${target.port}`;
  const base = { id: `printer:${target.host}:${target.port}`, title: `Printer ${label}`, essential: false } as const;
  return new Promise<DoctorItem>((resolve) => {
    const started = Date.now();
    const socket = createConnection({ host: target.host, port: target.port });
    socket.setTimeout(timeoutMs);
    const done = (item: DoctorItem) => {
      socket.destroy();
      resolve(item);
    };
    socket.once('connect', () => done({ ...base, status: 'pass', message: `accepts connections (${Date.now() - started} ms)` }));
    socket.once('timeout', () =>
      done({ ...base, status: 'fail', cause: 'timeout', message: `no answer within ${timeoutMs / 1000} s`, advice: 'Check that the printer is on and cabled, and its IP address (print its self-test page).' }),
    );
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done({
        ...base,
        status: 'fail',
        cause: error.code === 'ECONNREFUSED' ? 'refused' : 'unreachable',
        message: `${error.code ?? error.message}`,
        advice:
          error.code === 'ECONNREFUSED'
            ? `The address answers but nothing listens on port ${target.port}: check the port (9100 for raw printing) or whether another device has this IP.`
            : 'Check the printer\'s IP address and that this machine is on the same network.',
      }),
    );
  });
}

// ---------------------------------------------------------------------------------------------
// Output

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

// ---------------------------------------------------------------------------------------------
// migrate

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
  const capture = pino({ level: 'info' }, {
    write(line: string) {
      const entry = JSON.parse(line) as { applied?: unknown };
      if (Array.isArray(entry.applied)) applied = entry.applied.map(String);
    },
  });
  const pos = await openPos({ ...config.database, poolSize: 1 }, capture);
  await pos.close();
  return { applied, posVersion: pos.posVersion, database };
}
