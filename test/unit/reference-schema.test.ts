/**
 * The reference schema cannot drift: the committed SQL and types are what the generator makes
 * from sql/reference/*.tsv, and the SQL Server and PostgreSQL definitions agree column by
 * column (names, types mapped, NOT NULL, identities, primary keys).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { postgresType, renderReferenceSchema } from '../../scripts/reference-schema.js';
import { OPTIONAL_POS_TABLES, POS_TABLES } from '../../src/pos/runtime.js';

const root = new URL('../../', import.meta.url);

interface ParsedColumn {
  type: string;
  notNull: boolean;
  identity: boolean;
}

/** Tables → columns of a CREATE TABLE script, in either dialect's quoting. */
function parse(sql: string, quote: 'postgres' | 'mssql'): Map<string, Map<string, ParsedColumn>> {
  const tables = new Map<string, Map<string, ParsedColumn>>();
  const tableRe = quote === 'postgres' ? /CREATE TABLE "(\w+)" \(\n([\s\S]*?)\n\);/g : /CREATE TABLE \[dbo\]\.\[(\w+)\] \(\n([\s\S]*?)\n\);/g;
  const columnRe =
    quote === 'postgres'
      ? /^\s+"([^"]+)" (.+?)( GENERATED ALWAYS AS IDENTITY \(START WITH 1 MINVALUE 0\))?( NOT NULL)?$/
      : /^\s+\[([^\]]+)\] (.+?)( IDENTITY\(1,1\))? (NOT NULL|NULL)$/;
  for (const [, table, body] of sql.matchAll(tableRe)) {
    const columns = new Map<string, ParsedColumn>();
    for (const line of body!.split(',\n')) {
      if (/PRIMARY KEY/.test(line)) continue;
      const m = columnRe.exec(line);
      if (!m) throw new Error(`unparsed column line in ${table}: ${line}`);
      const notNull = quote === 'postgres' ? m[4] !== undefined : m[4] === 'NOT NULL';
      columns.set(m[1]!, { type: m[2]!, notNull, identity: m[3] !== undefined });
    }
    tables.set(table!, columns);
  }
  return tables;
}

function primaryKeys(sql: string): string[] {
  return [...sql.matchAll(/PRIMARY KEY \(([^)]+)\)/g)].map((m) => m[1]!.replace(/["[\]]/g, ''));
}

describe('reference schema', () => {
  it('the committed files are exactly what the generator makes', () => {
    for (const [path, text] of Object.entries(renderReferenceSchema())) {
      expect(readFileSync(new URL(path, root), 'utf8'), `${path}: run npm run schema:generate`).toBe(text);
    }
  });

  for (const version of ['softrestaurant11', 'softrestaurant10']) {
    it(`${version}: SQL Server and PostgreSQL define the same tables and columns`, () => {
      const mssqlText = readFileSync(new URL(`sql/mssql/pos/${version}.sql`, root), 'utf8');
      const postgresText = readFileSync(new URL(`sql/postgres/pos/${version}.sql`, root), 'utf8');
      const mssql = parse(mssqlText, 'mssql');
      const postgres = parse(postgresText, 'postgres');
      expect([...postgres.keys()]).toEqual([...mssql.keys()]);
      // Every table the agent uses, required and optional.
      expect(mssql.size).toBe(POS_TABLES.length + OPTIONAL_POS_TABLES.length);
      expect([...mssql.keys()].sort()).toEqual([...POS_TABLES, ...OPTIONAL_POS_TABLES].sort());
      for (const [table, columns] of mssql) {
        const pgColumns = postgres.get(table)!;
        expect([...pgColumns.keys()], table).toEqual([...columns.keys()]);
        for (const [name, column] of columns) {
          const pg = pgColumns.get(name)!;
          expect(pg.type, `${table}.${name}`).toBe(postgresType(column.type));
          expect(pg.notNull, `${table}.${name} NOT NULL`).toBe(column.notNull);
          expect(pg.identity, `${table}.${name} identity`).toBe(column.identity);
        }
      }
      expect(primaryKeys(postgresText)).toEqual(primaryKeys(mssqlText));
    });
  }

  it('SR 10 differs from SR 11 exactly where POS-SCHEMA.md says', () => {
    const sr11 = parse(readFileSync(new URL('sql/mssql/pos/softrestaurant11.sql', root), 'utf8'), 'mssql');
    const sr10 = parse(readFileSync(new URL('sql/mssql/pos/softrestaurant10.sql', root), 'utf8'), 'mssql');
    const missing = [...sr11].flatMap(([t, cols]) => [...cols.keys()].filter((c) => !sr10.get(t)!.has(c)).map((c) => `${t}.${c}`));
    expect(missing.filter((c) => !c.endsWith('.WorkspaceId'))).toEqual(['tipodescuento.imp_maximo_descuento', 'tipodescuento.activar_maximo_descuento']);
    expect(missing.filter((c) => c.endsWith('.WorkspaceId')).length).toBeGreaterThan(20);
    expect(sr10.get('tempcheqdet')!.get('descuento')!.type).toBe('numeric(6,2)');
    expect(sr11.get('tempcheqdet')!.get('descuento')!.type).toBe('numeric(8,4)');
  });
});
