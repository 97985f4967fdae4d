/**
 * Soft Restaurant's own statements as test oracles. The traces (`../shared/sr-traces/*.tsv`,
 * beside the repository; SR 11's Profiler traces published in Joseamica/avoqado-windows-service at
 * commit 9191fa0, info-softrest11/sql-traces/) are read when the tests run, never copied into the project; a missing
 * trace is a failure, not a skip. Helpers here find SR's writes and the columns they name, put
 * our values in place of the trace's literals, and run SR's reads on the test database: as they
 * are on SQL Server, and on PostgreSQL after the few spelling changes `toPostgres` makes.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { InstalledSchema } from '../../src/pos/columns.js';
import type { PosDb } from '../../src/pos/schema.js';
import { dialectOf } from '../../src/pos/sql-dialect.js';

export type TraceName = 'order-lifecycle' | 'shift-close';

const TRACE_DIR = new URL('../../../shared/sr-traces/', import.meta.url);
const cache = new Map<TraceName, Map<number, string>>();

/** A trace's statements by row number (column 1), the SQL text being column 4. */
export function trace(name: TraceName): Map<number, string> {
  let rows = cache.get(name);
  if (!rows) {
    const text = readFileSync(new URL(`${name}-flow.tsv`, TRACE_DIR), 'utf8');
    rows = new Map(
      text
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => {
          const cells = line.split('\t');
          return [Number(cells[0]), (cells[3] ?? '').trim()] as const;
        }),
    );
    cache.set(name, rows);
  }
  return rows;
}

/** The statement at a row; throws if the row is not there. */
export function statement(name: TraceName, row: number): string {
  const text = trace(name).get(row);
  if (text === undefined || text === '') throw new Error(`${name} row ${row} has no statement`);
  return text;
}

export interface TraceWrite {
  row: number;
  kind: 'insert' | 'insert-select' | 'update';
  table: string;
  /** The columns SR names, as it spells them. */
  columns: string[];
  /** For INSERT … SELECT: the target columns SR fills with a literal (`'894' as idturno`). */
  literalColumns: string[];
}

/** Splits on commas outside parentheses and quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (const ch of text) {
    if (ch === "'") quoted = !quoted;
    else if (!quoted && ch === '(') depth++;
    else if (!quoted && ch === ')') depth--;
    if (ch === ',' && depth === 0 && !quoted) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '') parts.push(current.trim());
  return parts;
}

const bare = (name: string) =>
  name
    .replace(/[[\]]/g, '')
    .replace(/^\w+\./, '')
    .trim();

/** The INSERT or UPDATE a statement is, with the columns it names; undefined for anything else. */
export function parseWrite(row: number, text: string): TraceWrite | undefined {
  // SR's upsert of its sync mark (IF NOT EXISTS … INSERT … ELSE UPDATE): the INSERT names every column.
  const body = /^IF NOT EXISTS/i.test(text) ? text.slice(text.search(/INSERT INTO/i)) : text;
  const insert = /^INSERT INTO\s+(\w+)\s*\(([^)]*)\)\s*(VALUES|SELECT)([\s\S]*)$/i.exec(body);
  if (insert) {
    const [, table, list, mode, rest] = insert;
    const columns = splitTopLevel(list!).map(bare);
    if (mode!.toUpperCase() === 'VALUES') return { row, kind: 'insert', table: table!, columns, literalColumns: [] };
    const selected = splitTopLevel(rest!.replace(/\sFROM\s[\s\S]*$/i, ''));
    const literalColumns = columns.filter((_, i) => /^'[^']*'\s+as\s+\w+$/i.test(selected[i] ?? ''));
    return { row, kind: 'insert-select', table: table!, columns, literalColumns };
  }
  const update = /^UPDATE\s+(\w+)\s*(?:WITH\s*\([^)]*\))?\s+SET\s+([\s\S]*?)(?:\s+FROM\s+([\s\S]*?))?(?:\s+WHERE\s[\s\S]*)?$/i.exec(body.trim());
  if (update) {
    const [, target, sets, from] = update;
    // `UPDATE alias SET … FROM table AS alias`: the table the alias names.
    const aliased = from ? new RegExp(`(\\w+)\\s+as\\s+${target}\\b`, 'i').exec(from) : null;
    const columns = splitTopLevel(sets!).map((s) => bare(s.split('=')[0]!));
    return { row, kind: 'update', table: aliased ? aliased[1]! : target!, columns, literalColumns: [] };
  }
  return undefined;
}

/** Every INSERT and UPDATE of a trace. */
export function writesOf(name: TraceName): TraceWrite[] {
  return [...trace(name)].flatMap(([row, text]) => parseWrite(row, text) ?? []);
}

/**
 * SR's statement with our text in place of pieces of the trace's: each key must occur, and a key
 * that starts or ends with a letter or digit only as a whole token (`folio=1` is not
 * `folio=12`), so a trace that changed fails here.
 */
export function withValues(text: string, values: Record<string, string | number>): string {
  let out = text;
  for (const [literal, value] of Object.entries(values)) {
    const escaped = literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const before = /^[\w.]/.test(literal) ? '(?<![\\w.])' : '';
    const after = /[\w.]$/.test(literal) ? '(?![\\w.])' : '';
    const pattern = new RegExp(`${before}${escaped}${after}`, 'g');
    if (!pattern.test(out)) throw new Error(`${literal} is not in: ${text}`);
    out = out.replace(pattern, String(value));
  }
  return out;
}

/** Tables a statement reads or writes, by the words after FROM, JOIN, UPDATE and INTO. */
function tablesIn(text: string): string[] {
  return [...text.matchAll(/\b(?:from|join|update|into)\s+(\w+)/gi)].map((m) => m[1]!.toLowerCase());
}

/**
 * The PostgreSQL spelling of one of SR's reads, changed only where T-SQL and PostgreSQL differ
 * in the statements the tests run: `TOP n` becomes `LIMIT n`, `ISNULL` is `coalesce`, table
 * hints go, and a `bit` column compared with 0 or 1 is compared with false or true (the
 * reference schema's PostgreSQL form has boolean for bit). Anything else T-SQL-only is refused.
 */
export function toPostgres(text: string, schema: InstalledSchema): string {
  if (/\b(getdate|dateadd|datediff|convert|iif|dbcc|datalength|scope_identity)\s*\(|\bdbcc\b/i.test(text)) {
    throw new Error(`no PostgreSQL spelling for: ${text}`);
  }
  let out = text.replace(/\bwith\s*\((?:nolock|rowlock|tablock|tablockx|updlock)\)/gi, '').replace(/\bisnull\s*\(/gi, 'coalesce(');
  // `(SELECT TOP n …)` in a subquery, then a leading `SELECT TOP n`.
  out = out.replace(/\(\s*select\s+top\s+(\d+)\s+([^()]*)\)/gi, (_, n: string, rest: string) => `(select ${rest.trim()} limit ${n})`);
  const top = /^\s*select\s+top\s+(\d+)\s+/i.exec(out);
  if (top) out = `select ${out.slice(top[0].length)} limit ${top[1]}`;
  const tables = tablesIn(text);
  const isBit = (column: string) => {
    const kinds = tables.flatMap((t) => {
      const info = schema.column(t as never, column);
      return info ? [info.dataType === 'boolean'] : [];
    });
    if (new Set(kinds).size > 1) throw new Error(`${column} is bit in one table of ${tables.join(', ')} and not in another`);
    return kinds[0] === true;
  };
  return out.replace(/(?<![\w.'])((?:\w+\.)?(\w+))\s*=\s*([01])(?![\w.])/g, (match, ref: string, column: string, value: string) =>
    isBit(column) ? `${ref} = ${value === '1' ? 'true' : 'false'}` : match,
  );
}

/** Runs one of SR's reads on the test database, as SR wrote it on SQL Server. */
export async function srRead<T>(db: PosDb, schema: InstalledSchema, text: string): Promise<T[]> {
  const spelled = dialectOf(db) === 'mssql' ? text : toPostgres(text, schema);
  return (await sql.raw<T>(spelled).execute(db)).rows;
}
