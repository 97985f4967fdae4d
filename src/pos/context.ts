import type { Logger } from 'pino';
import type { InstalledSchema } from './columns.js';
import type { PosDb, PosDialectName } from './db.js';

/**
 * What an operation gets besides its validated input. For a write, `db` is the transaction the
 * runner opened (and in which it records the idempotency key); for a read, the pool.
 */
export interface PosContext {
  db: PosDb;
  dialect: PosDialectName;
  schema: InstalledSchema;
  log: Logger;
  /** Branch-local now; one value per job so every row of a write carries the same time. */
  now: Date;
}
