/**
 * Creates the reference Soft Restaurant schema (sql/<dialect>/pos/) in an empty database: what
 * the demo and the tests run on in place of a branch's real database.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { PosDialectName } from './sql-dialect.js';
import type { PosDb } from './schema.js';
import { SQL_DIR } from '../sql-migrations.js';

export function referenceSchemaSql(dialect: PosDialectName, file = 'softrestaurant11.sql'): string[] {
  const text = readFileSync(`${SQL_DIR}${dialect}/pos/${file}`, 'utf8');
  return dialect === 'mssql'
    ? text
        .split(/^\s*GO\s*$/im)
        .map((b) => b.trim())
        .filter(Boolean)
    : [text];
}

export async function installReferenceSchema(db: PosDb, dialect: PosDialectName, file?: string): Promise<void> {
  for (const batch of referenceSchemaSql(dialect, file)) await sql.raw(batch).execute(db);
}
