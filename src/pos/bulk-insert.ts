/**
 * Multi-row INSERTs within SQL Server's limits: 2,100 parameters per statement and 1,000 rows
 * per VALUES list. A line of an account is ~40 parameters, so 500 lines in one statement would
 * be refused; rows go in as few statements as the limits allow (one, for everyday sizes). The
 * same statements run on PostgreSQL, so its tests cover the splitting.
 */
import type { Insertable } from 'kysely';
import type { PosDatabase, PosDb, PosTable } from './schema.js';

/** Parameters one statement may use, short of 2,100 to leave room for anything else in it. */
const MAX_PARAMETERS = 2_000;
const MAX_ROWS = 1_000;

/** Consecutive groups of rows, each small enough for one INSERT. */
export function insertChunks<R extends object>(rows: readonly R[]): R[][] {
  const columns = new Set(rows.flatMap((r) => Object.keys(r))).size;
  const size = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / Math.max(1, columns))));
  const chunks: R[][] = [];
  for (let i = 0; i < rows.length; i += size) chunks.push(rows.slice(i, i + size));
  return chunks;
}

export async function insertRows<T extends PosTable>(db: PosDb, table: T, rows: ReadonlyArray<Insertable<PosDatabase[T]>>): Promise<void> {
  for (const chunk of insertChunks(rows)) {
    await db.insertInto(table).values(chunk).execute();
  }
}
