/**
 * Numbered SQL migrations: `000_*.sql` creates the version table (idempotent, run every time),
 * each later file runs once, in order, in its own transaction. SQL Server files separate batches
 * with `GO` lines. Used for the agent's `ba_` tables and for the gateway store, which is why it
 * sits below both.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';

/** The dialects migration files are written for (sql/<dialect>/). */
export type MigrationDialect = 'postgres' | 'mssql';

export const SQL_DIR = fileURLToPath(new URL('../sql/', import.meta.url));

export interface MigrationFile {
  version: number;
  name: string;
  batches: string[];
}

export function readMigrations(dir: string, dialect: MigrationDialect): MigrationFile[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_.+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const text = readFileSync(`${dir}/${file}`, 'utf8');
      const batches = dialect === 'mssql' ? text.split(/^\s*GO\s*$/im) : [text];
      return {
        version: Number(file.slice(0, 3)),
        name: file,
        batches: batches.map((b) => b.trim()).filter((b) => b !== ''),
      };
    });
}

export async function runMigrations(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the version table is all it touches
  db: Kysely<any>,
  dir: string,
  dialect: MigrationDialect,
  versionTable: string,
): Promise<string[]> {
  const [bootstrap, ...files] = readMigrations(dir, dialect);
  if (!bootstrap || bootstrap.version !== 0) throw new Error(`${dir}: 000_*.sql must create ${versionTable}`);
  for (const batch of bootstrap.batches) await sql.raw(batch).execute(db);

  const done = await appliedVersions(db, versionTable);
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file.version)) continue;
    await db.transaction().execute(async (trx) => {
      for (const batch of file.batches) await sql.raw(batch).execute(trx);
      await trx.insertInto(versionTable).values({ version: file.version, name: file.name, applied_at: new Date() }).execute();
    });
    applied.push(file.name);
  }
  return applied;
}

/** The migration versions already applied (none when the version table does not exist yet). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the version table is all it touches
export async function appliedVersions(db: Kysely<any>, versionTable: string): Promise<Set<number>> {
  const rows = await db.selectFrom(versionTable).select('version').execute();
  return new Set(rows.map((r: { version: number }) => Number(r.version)));
}

/** Where the agent's (`ba_` tables in the POS database) or the gateway store's migrations are. */
export function migrationsDir(dialect: MigrationDialect, owner: 'agent' | 'gateway'): string {
  return `${SQL_DIR}${dialect}/${owner}`;
}
