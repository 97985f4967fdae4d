/**
 * What SQL Server 2014 allows, checked on the saved T-SQL (test/tsql/expected) without a server:
 * - fingerprints stay binary: `hashbytes` is compared as the 16 bytes it returns, never converted
 *   to text (a style-2 conversion is what Babelfish got wrong for ~30 % of the hashes);
 * - SQL Server 2014 refuses HASHBYTES input over 8,000 bytes: the longest text each fingerprint's
 *   `concat` can make is computed from the reference schema's column types
 *   (sql/reference/softrestaurant11-columns.tsv);
 * - a table hint locks only what the plan reads: no `TOP 0` under a lock hint;
 * - nothing SQL Server 2014 lacks (test/support/tsql-text.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { callsOf, closing, splitList, topLevelFrom, tsqlProblems } from '../support/tsql-text.js';

const EXPECTED = path.resolve(import.meta.dirname, '../tsql/expected');
const COLUMNS = path.resolve(import.meta.dirname, '../../sql/reference/softrestaurant11-columns.tsv');

const statements: Array<{ file: string; sql: string }> = readdirSync(EXPECTED, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.sql'))
  .flatMap((file) =>
    readFileSync(path.join(EXPECTED, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('--'))
      .map((sql) => ({ file, sql })),
  );

const columnTypes = new Map(
  readFileSync(COLUMNS, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split('\t'))
    .map(([table, column, type]) => [`${table}.${column}`.toLowerCase(), type!.toLowerCase()]),
);

/**
 * What each alias of a statement names: a table (`from "tempcheques" as "h"`) or a derived
 * table's columns (`(select count(*) as "lineas" … ) as "l"`).
 */
interface Scope {
  tables: Map<string, string>;
  derived: Map<string, Map<string, string>>;
}

function scopeOf(sql: string): Scope {
  const tables = new Map([...sql.matchAll(/(?:from|join) "(\w+)" as "(\w+)"/g)].map((m) => [m[2]!, m[1]!]));
  const derived = new Map<string, Map<string, string>>();
  for (let at = sql.indexOf('(select '); at !== -1; at = sql.indexOf('(select ', at + 1)) {
    const end = closing(sql, at);
    const alias = /^ as "(\w+)"/.exec(sql.slice(end + 1))?.[1];
    if (!alias) continue;
    const body = sql.slice(at + '(select '.length, end);
    const columns = new Map(
      splitList(body.slice(0, topLevelFrom(body))).map((item) => {
        const named = /^(.*) as "(\w+)"$/.exec(item);
        return named ? [named[2]!, named[1]!] : [/"(\w+)"$/.exec(item)![1]!, item];
      }),
    );
    derived.set(alias, columns);
  }
  return { tables, derived };
}

/**
 * The most characters a value of this SQL Server type becomes when `concat` converts it to text
 * (style 0): integers with their sign, decimals with sign, point and a leading zero, money as
 * numeric(19,4), dates as 'Jan  1 2000 12:00AM' (19 characters in English; 30 leaves room for any
 * language's month names). A type of unbounded length has no maximum.
 */
function textLength(type: string): number {
  const fixed: Record<string, number> = { bit: 1, tinyint: 3, smallint: 6, int: 11, bigint: 20, money: 22, smallmoney: 13, uniqueidentifier: 36 };
  if (type in fixed) return fixed[type]!;
  if (/date|time/.test(type)) return 30;
  const decimal = /^(?:numeric|decimal)\((\d+)(?:,\s*\d+)?\)$/.exec(type);
  if (decimal) return Number(decimal[1]) + 3;
  const text = /^n?(?:var)?char\((\d+)\)$/.exec(type);
  if (text) return Number(text[1]);
  return Infinity;
}

/** Any sum is at most numeric(38, s): SQL Server's largest precision, with sign, point and leading zero. */
const SUM_LENGTH = 38 + 3;
const COUNT_LENGTH = textLength('int');

function maxLength(expr: string, scope: Scope): number {
  const literal = /^'((?:[^']|'')*)'$/.exec(expr);
  if (literal) return literal[1]!.replace(/''/g, "'").length;
  const ref = /^"(\w+)"\."(\w+)"$/.exec(expr);
  if (ref) {
    const [, alias, column] = ref;
    const table = scope.tables.get(alias!);
    if (table) {
      const type = columnTypes.get(`${table}.${column}`.toLowerCase());
      if (!type) throw new Error(`${table}.${column} is not in the reference schema`);
      return textLength(type);
    }
    const inner = scope.derived.get(alias!)?.get(column!);
    if (inner === undefined) throw new Error(`unknown reference ${expr}`);
    return maxLength(inner, scope);
  }
  if (/^count\(/.test(expr)) return COUNT_LENGTH;
  const minMax = /^(?:max|min)\((.*)\)$/.exec(expr);
  if (minMax) return maxLength(minMax[1]!, scope);
  if (/^sum\(/.test(expr)) {
    for (const [, alias, column] of expr.matchAll(/"(\w+)"\."(\w+)"/g)) {
      const type = columnTypes.get(`${scope.tables.get(alias!)}.${column}`.toLowerCase());
      expect(type, `${expr}: ${alias}.${column} is numeric`).toMatch(/int|numeric|decimal|money|bit/);
    }
    return SUM_LENGTH;
  }
  throw new Error(`no maximum length known for ${expr}: teach this test its type`);
}

const fingerprints = statements.flatMap(({ file, sql }) => callsOf(sql, 'hashbytes').map((args) => ({ file, sql, args })));

describe('fingerprints', () => {
  it('are in the saved T-SQL', () => {
    expect(fingerprints.length).toBeGreaterThan(0);
  });

  it('stay binary: the server never converts a hash to text', () => {
    for (const { file, sql } of statements) {
      for (const args of callsOf(sql, 'convert')) expect(args.join(', '), file).not.toMatch(/^[^,]+, hashbytes\(/);
      for (const args of callsOf(sql, 'cast')) expect(args.join(', '), file).not.toMatch(/^hashbytes\(/);
    }
  });

  it("hash at most 8,000 bytes (SQL Server 2014's HASHBYTES limit), counting every character as nvarchar's 2 bytes", () => {
    for (const { file, sql, args } of fingerprints) {
      expect(args[0], file).toBe("'MD5'");
      const concat = callsOf(args[1]!, 'concat')[0];
      expect(args[1], `${file}: a fingerprint hashes one concat`).toMatch(/^concat\(.*\)$/);
      const scope = scopeOf(sql);
      // One nvarchar argument makes the whole concat nvarchar: 2 bytes a character, whatever the types.
      const bytes = 2 * concat!.reduce((sum, arg) => sum + maxLength(arg, scope), 0);
      expect(bytes, `${file}: ${args[1]!.slice(0, 120)}…`).toBeLessThanOrEqual(8000);
    }
  });
});

describe('every statement', () => {
  it('a lock hint sits on a statement that reads the table: no TOP 0, which a plan may answer without touching it', () => {
    const locking = statements.filter(({ sql }) => /with \((?:[^)]*)(?:tablockx|updlock|holdlock)/.test(sql));
    expect(locking.length).toBeGreaterThan(0);
    for (const { file, sql } of locking) expect(sql, file).not.toMatch(/\btop\s*\(?\s*0\b/);
  });

  it('nothing SQL Server 2014 lacks: no LIMIT, no PostgreSQL syntax, no call past 100 arguments', () => {
    for (const { file, sql } of statements) expect(tsqlProblems(sql), `${file}: ${sql.slice(0, 120)}`).toEqual([]);
  });
});
