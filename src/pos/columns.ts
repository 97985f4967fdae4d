/**
 * What the installed Soft Restaurant version actually has, read once at start-up from
 * INFORMATION_SCHEMA.COLUMNS. Column sets differ between SR 8, 9.5/10, 11 and 12, so rows are
 * shaped to the installation before they are written: unknown columns dropped, NOT NULL columns
 * without a default filled with a neutral value, free text cut to the column's width.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Logger } from 'pino';
import { introspection, type PosDialectName } from './sql-dialect.js';
import type { PosDatabase, PosDb, PosTable } from './schema.js';

export interface ColumnInfo {
  name: string;
  dataType: string;
  /** Characters for text columns; -1 for (max); null for non-text. */
  maxLength: number | null;
  numericScale: number | null;
  nullable: boolean;
  hasDefault: boolean;
  identity: boolean;
}

type Row = Record<string, unknown>;

/** Known column names of a table with loosely typed values: they are shaped at run time. */
export type ColumnValues<T extends PosTable> = { [K in keyof PosDatabase[T]]?: unknown };

const TEXT_TYPES = new Set(['varchar', 'nvarchar', 'char', 'nchar', 'character varying', 'character', 'text', 'ntext']);

/**
 * Text types that hold the database's code page rather than Unicode. Soft Restaurant's databases
 * use Latin1_General collations (code page 1252); the reference schema's PostgreSQL varchar
 * stands for SR's varchar, so the demo and the tests store what a branch would.
 */
const CODE_PAGE_TYPES = new Set(['varchar', 'char', 'text', 'character varying', 'character']);

/**
 * What code page 1252 lacks, by UTF-16 unit (no u flag: a surrogate pair is two units): all but
 * ASCII, Latin-1's printable half and the 27 characters 1252 puts in 0x80–0x9F.
 */
// eslint-disable-next-line no-control-regex -- the ASCII range is the point
const NOT_IN_CODE_PAGE_1252 = /[^\x00-\x7f\xa0-\xff€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]/g;

/**
 * The text as a code page 1252 column keeps it: SQL Server stores '?' for what the code page
 * lacks, one per UTF-16 unit. (No iconv-lite here: its tables would load with the agent.)
 */
export function inCodePage1252(text: string): string {
  return text.replace(NOT_IN_CODE_PAGE_1252, '?');
}

/** The first `width` characters of `text`, never cutting a surrogate pair in two. */
export function cutToWidth(text: string, width: number): string {
  if (text.length <= width) return text;
  const end = /[\ud800-\udbff]/.test(text[width - 1] ?? '') ? width - 1 : width;
  return text.slice(0, Math.max(0, end));
}

function neutralValue(column: ColumnInfo): unknown {
  const type = column.dataType.toLowerCase();
  if (TEXT_TYPES.has(type)) return '';
  if (type === 'bit' || type === 'boolean') return false;
  if (type === 'uniqueidentifier' || type === 'uuid') return randomUUID();
  if (type.includes('date') || type.includes('time')) return new Date();
  if (type === 'varbinary' || type === 'image' || type === 'bytea') return Buffer.alloc(0);
  return 0;
}

/** The form under which a table or column name is looked up: lower case where the server ignores case. */
function nameKey(ignoreCase: boolean): (name: string) => string {
  return ignoreCase ? (name) => name.toLowerCase() : (name) => name;
}

/**
 * Names are matched the way the server matches them: exactly on PostgreSQL, whatever the letter
 * case on SQL Server, whose Soft Restaurant databases use case-insensitive collations, so an
 * installation spelling a column `IdTurno` or `WorkspaceID` still has `idturno` and `WorkspaceId`.
 */
export class InstalledSchema {
  readonly #tables: Map<string, Map<string, ColumnInfo>>;
  readonly #key: (name: string) => string;
  readonly #log: Logger | undefined;
  readonly #reportedCuts = new Set<string>();

  constructor(tables: Iterable<[string, Iterable<ColumnInfo>]>, options: { caseInsensitive: boolean; log?: Logger | undefined }) {
    this.#key = nameKey(options.caseInsensitive);
    this.#tables = new Map([...tables].map(([table, columns]) => [this.#key(table), new Map([...columns].map((c) => [this.#key(c.name), c]))]));
    this.#log = options.log;
  }

  hasTable(table: string): boolean {
    return this.#tables.has(this.#key(table));
  }

  has(table: PosTable, column: string): boolean {
    return this.column(table, column) !== undefined;
  }

  column(table: PosTable, column: string): ColumnInfo | undefined {
    return this.#tables.get(this.#key(table))?.get(this.#key(column));
  }

  /** Decimal places the installation keeps for a numeric column (SR 10 line discounts: 2). */
  scale(table: PosTable, column: string, fallback: number): number {
    return this.column(table, column)?.numericScale ?? fallback;
  }

  /** Installed column names of a table, in table order, spelled as installed. */
  columnNames(table: PosTable): string[] {
    return [...(this.#tables.get(this.#key(table))?.values() ?? [])].map((c) => c.name);
  }

  /** Columns of `from` that `to` also has, except those listed and `to`'s identity. */
  sharedColumns(from: PosTable, to: PosTable, except: readonly string[]): string[] {
    const excluded = new Set(except.map(this.#key));
    return this.columnNames(from).filter((c) => {
      const target = this.column(to, c);
      return target !== undefined && !target.identity && !excluded.has(this.#key(c));
    });
  }

  missingColumns(table: PosTable, expected: readonly string[]): string[] {
    return expected.filter((c) => !this.has(table, c));
  }

  /** Shapes a row for an UPDATE: only installed columns, text cut to width. */
  fitRow<T extends PosTable>(table: T, row: ColumnValues<T>): Updateable<PosDatabase[T]> {
    const columns = this.#tables.get(this.#key(table));
    if (!columns) throw new Error(`table ${table} is not installed`);
    const out: Row = {};
    for (const [name, value] of Object.entries(row)) {
      const info = columns.get(this.#key(name));
      if (!info || value === undefined) continue;
      out[name] = this.#cut(table, info, value);
    }
    return out as Updateable<PosDatabase[T]>;
  }

  /** Shapes a row for an INSERT: `fitRow` plus a neutral value for each required column left out. */
  completeRow<T extends PosTable>(table: T, row: ColumnValues<T>): Insertable<PosDatabase[T]> {
    const out: Row = this.fitRow(table, row);
    const given = new Set(Object.keys(out).map(this.#key));
    for (const info of this.#tables.get(this.#key(table))!.values()) {
      if (info.nullable || info.hasDefault || info.identity || given.has(this.#key(info.name))) continue;
      out[info.name] = neutralValue(info);
    }
    return out as Insertable<PosDatabase[T]>;
  }

  /**
   * Text as the column stores it: in its code page, and cut to its width, never inside a
   * character. The API refuses text longer than its column; what is still cut is text the
   * agent composes (system log entries) or that the seed allows longer (a cancellation reason).
   */
  #cut(table: string, info: ColumnInfo, value: unknown): unknown {
    if (typeof value !== 'string' || info.maxLength === null) return value;
    const text = CODE_PAGE_TYPES.has(info.dataType.toLowerCase()) ? inCodePage1252(value) : value;
    if (info.maxLength < 0 || text.length <= info.maxLength) return text;
    const key = `${table}.${info.name}`;
    if (!this.#reportedCuts.has(key)) {
      this.#reportedCuts.add(key);
      this.#log?.info({ column: key, width: info.maxLength, length: text.length }, 'text cut to the column width');
    }
    return cutToWidth(text, info.maxLength);
  }
}

export async function readInstalledSchema(
  db: PosDb,
  dialect: PosDialectName,
  tables: readonly string[],
  log?: Logger,
  optional: readonly string[] = [],
): Promise<InstalledSchema> {
  const { isIdentity, currentSchema, namesIgnoreCase } = introspection(dialect);
  const result = await sql<{
    table_name: string;
    column_name: string;
    data_type: string;
    character_maximum_length: number | null;
    numeric_scale: number | null;
    is_nullable: string;
    column_default: string | null;
    is_identity: number;
  }>`select table_name, column_name, data_type, character_maximum_length, numeric_scale, is_nullable,
       column_default, ${isIdentity} as is_identity
     from information_schema.columns
     where table_schema = ${currentSchema} and table_name in (${sql.join([...tables, ...optional])})
     order by table_name, ordinal_position`.execute(db);

  const map = new Map<string, ColumnInfo[]>();
  for (const r of result.rows) {
    const columns = map.get(r.table_name) ?? [];
    map.set(r.table_name, columns);
    columns.push({
      name: r.column_name,
      dataType: r.data_type,
      maxLength: r.character_maximum_length === null ? null : Number(r.character_maximum_length),
      numericScale: r.numeric_scale === null ? null : Number(r.numeric_scale),
      nullable: r.is_nullable === 'YES',
      hasDefault: r.column_default !== null,
      identity: Number(r.is_identity) === 1,
    });
  }
  const schema = new InstalledSchema(map, { caseInsensitive: namesIgnoreCase, log });
  const missing = tables.filter((t) => !schema.hasTable(t));
  if (missing.length > 0) throw new Error(`POS tables not found: ${missing.join(', ')}`);
  return schema;
}

/** Which of these tables exist in the database, by the names asked for (the doctor reports the missing ones). */
export async function installedTables(db: PosDb, dialect: PosDialectName, tables: readonly string[]): Promise<Set<string>> {
  const { currentSchema, namesIgnoreCase } = introspection(dialect);
  const result = await sql<{ table_name: string }>`select table_name from information_schema.tables
    where table_schema = ${currentSchema} and table_name in (${sql.join(tables)})`.execute(db);
  const key = nameKey(namesIgnoreCase);
  const found = new Set(result.rows.map((r) => key(r.table_name)));
  return new Set(tables.filter((t) => found.has(key(t))));
}
