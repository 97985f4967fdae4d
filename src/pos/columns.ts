/**
 * What the installed Soft Restaurant version actually has, read once at start-up from
 * INFORMATION_SCHEMA.COLUMNS. Column sets differ between SR 8, 9.5/10, 11 and 12, so rows are
 * shaped to the installation before they are written: unknown columns dropped, NOT NULL columns
 * without a default filled with a neutral value, free text cut to the column's width.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { introspection, type PosDb, type PosDialectName } from './db.js';
import type { Insertable, Updateable } from 'kysely';
import type { PosDatabase, PosTable } from './schema.js';

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

function neutralValue(column: ColumnInfo): unknown {
  const type = column.dataType.toLowerCase();
  if (TEXT_TYPES.has(type)) return '';
  if (type === 'bit' || type === 'boolean') return false;
  if (type === 'uniqueidentifier' || type === 'uuid') return randomUUID();
  if (type.includes('date') || type.includes('time')) return new Date();
  if (type === 'varbinary' || type === 'image' || type === 'bytea') return Buffer.alloc(0);
  return 0;
}

export class InstalledSchema {
  readonly #tables: Map<string, Map<string, ColumnInfo>>;
  readonly #log: Logger | undefined;
  readonly #reportedCuts = new Set<string>();

  constructor(tables: Map<string, Map<string, ColumnInfo>>, log?: Logger) {
    this.#tables = tables;
    this.#log = log;
  }

  has(table: PosTable, column: string): boolean {
    return this.#tables.get(table)?.has(column) ?? false;
  }

  column(table: PosTable, column: string): ColumnInfo | undefined {
    return this.#tables.get(table)?.get(column);
  }

  /** Decimal places the installation keeps for a numeric column (SR 10 line discounts: 2). */
  scale(table: PosTable, column: string, fallback: number): number {
    return this.column(table, column)?.numericScale ?? fallback;
  }

  /** Installed column names of a table, in table order. */
  columnNames(table: PosTable): string[] {
    return [...(this.#tables.get(table)?.keys() ?? [])];
  }

  missingColumns(table: PosTable, expected: readonly string[]): string[] {
    return expected.filter((c) => !this.has(table, c));
  }

  /** Shapes a row for an UPDATE: only installed columns, text cut to width. */
  fitRow<T extends PosTable>(table: T, row: ColumnValues<T>): Updateable<PosDatabase[T]> {
    const columns = this.#tables.get(table);
    if (!columns) throw new Error(`table ${table} is not installed`);
    const out: Row = {};
    for (const [name, value] of Object.entries(row)) {
      const info = columns.get(name);
      if (!info || value === undefined) continue;
      out[name] = this.#cut(table, info, value);
    }
    return out as Updateable<PosDatabase[T]>;
  }

  /** Shapes a row for an INSERT: `fitRow` plus a neutral value for each required column left out. */
  completeRow<T extends PosTable>(table: T, row: ColumnValues<T>): Insertable<PosDatabase[T]> {
    const out: Row = this.fitRow(table, row);
    for (const info of this.#tables.get(table)!.values()) {
      if (info.nullable || info.hasDefault || info.identity || out[info.name] !== undefined) continue;
      out[info.name] = neutralValue(info);
    }
    return out as Insertable<PosDatabase[T]>;
  }

  #cut(table: string, info: ColumnInfo, value: unknown): unknown {
    if (typeof value !== 'string' || info.maxLength === null || info.maxLength < 0 || value.length <= info.maxLength) {
      return value;
    }
    const key = `${table}.${info.name}`;
    if (!this.#reportedCuts.has(key)) {
      this.#reportedCuts.add(key);
      this.#log?.info({ column: key, width: info.maxLength, length: value.length }, 'text cut to the column width');
    }
    return value.slice(0, info.maxLength);
  }
}

export async function readInstalledSchema(
  db: PosDb,
  dialect: PosDialectName,
  tables: readonly string[],
  log?: Logger,
): Promise<InstalledSchema> {
  const { isIdentity, currentSchema } = introspection(dialect);
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
     where table_schema = ${currentSchema} and table_name in (${sql.join(tables)})
     order by table_name, ordinal_position`.execute(db);

  const map = new Map<string, Map<string, ColumnInfo>>();
  for (const r of result.rows) {
    const columns = map.get(r.table_name) ?? new Map<string, ColumnInfo>();
    map.set(r.table_name, columns);
    columns.set(r.column_name, {
      name: r.column_name,
      dataType: r.data_type,
      maxLength: r.character_maximum_length === null ? null : Number(r.character_maximum_length),
      numericScale: r.numeric_scale === null ? null : Number(r.numeric_scale),
      nullable: r.is_nullable === 'YES',
      hasDefault: r.column_default !== null,
      identity: Number(r.is_identity) === 1,
    });
  }
  const missing = tables.filter((t) => !map.has(t));
  if (missing.length > 0) throw new Error(`POS tables not found: ${missing.join(', ')}`);
  return new InstalledSchema(map, log);
}

/** Which of these tables exist in the database (the doctor reports the missing ones). */
export async function installedTables(db: PosDb, dialect: PosDialectName, tables: readonly string[]): Promise<Set<string>> {
  const { currentSchema } = introspection(dialect);
  const result = await sql<{ table_name: string }>`select table_name from information_schema.tables
    where table_schema = ${currentSchema} and table_name in (${sql.join(tables)})`.execute(db);
  return new Set(result.rows.map((r) => r.table_name));
}
