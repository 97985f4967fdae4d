/**
 * Writes the reference Soft Restaurant schema (SQL Server and PostgreSQL forms) and the Kysely
 * table types from the column lists in sql/reference/. Run after changing those lists:
 *   npx tsx scripts/generate-reference-schema.ts
 * A test compiles the same output again and fails when the committed files differ.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderReferenceSchema } from './reference-schema.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const [path, text] of Object.entries(renderReferenceSchema())) {
  writeFileSync(root + path, text);
  console.log(`wrote ${path}`);
}
