/**
 * The doctor's database checks: the connection, the Soft Restaurant tables and columns against
 * the reference schema, the POS version and the agent's own `ba_` migrations. Reads only.
 */
import { readFileSync } from 'node:fs';
import { installedTables, readInstalledSchema } from '../../pos/columns.js';
import { createPosDb, type PosDbConfig } from '../../pos/db.js';
import { appliedVersions, migrationsDir, readMigrations, SQL_DIR } from '../../sql-migrations.js';
import { POS_TABLES, readPosVersion } from '../../pos/runtime.js';
import type { PosDb } from '../../pos/schema.js';
import type { PosDialectName } from '../../pos/sql-dialect.js';
import { describeDatabase } from './config-check.js';
import { databaseAdvice, FAILURE_TEXT, probeDatabase } from './database-diagnosis.js';
import { errorMessage, skipped, type DoctorItem } from './report.js';

export async function checkDatabase(config: PosDbConfig, timeoutMs: number): Promise<DoctorItem[]> {
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
  const { db, close } = await createPosDb({ ...config, poolSize: 1 });
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
  const schema = await readInstalledSchema(
    db,
    dialect,
    POS_TABLES.filter((t) => present.has(t)),
  );
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
        "(e.g. softrestaurant11) and that the login's default schema is dbo.",
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
  const files = readMigrations(migrationsDir(dialect, 'agent'), dialect).filter((m) => m.version > 0);
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
      advice:
        'Applied automatically when the agent starts; run `branch-agent migrate -c <config>` to apply them now (the login needs CREATE TABLE permission).',
    };
  }
  return { ...base, status: 'pass', message: `up to date (${files.length} migration(s))${note}` };
}
