import type { Logger } from 'pino';
import type { InstalledSchema } from './columns.js';
import type { PrinterRule } from '../protocol/printer-rule.js';
import type { PosDialectName } from './sql-dialect.js';
import type { PosDb } from './schema.js';

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
  /**
   * The branch's clock as it runs on, in whole seconds like `now`: for a step that waited (a
   * lock) and must not date its row before what others recorded meanwhile. `now` without it.
   */
  clock?: () => Date;
  /** Where the print operations may send (the agent's `printers` config); DEFAULT_PRINTER_RULE unless set. */
  printerRule?: PrinterRule;
  /** When the gateway stops waiting for the job (performance.now()); a print not begun by then is not sent. */
  deadline?: number;
  /**
   * For a write: work to do once its transaction has committed, outside it, as Soft Restaurant
   * does some housekeeping after its own (a failure there is logged; the write stands).
   */
  afterCommit?: (task: (db: PosDb) => Promise<void>) => void;
  /**
   * For a write: an effect outside the database (a print) to run once its transaction has
   * committed, so that the effect failing cannot undo the write. What the effect answers replaces
   * those fields of the result, in the answer and in the idempotency record, so a retry answers
   * what happened without doing it again. Until then the record keeps what the write returned.
   */
  outside?: (effect: OutsideEffect) => void;
}

/**
 * `answer`: the fields it replaces. `recorded`: its own records of what it did, which the client's
 * answer does not wait for (a retry of the key does, with the key's own record).
 */
export type OutsideEffect = (db: PosDb) => Promise<{ answer: Record<string, unknown>; recorded: Promise<void> }>;

const readsOfJob = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * A read made once per job (one context): the branch's settings, a station's row. Several steps
 * of one write ask for them; Soft Restaurant changes them from its own screens, never within a
 * job of ours.
 */
export function readOnce<T>(ctx: object, key: string, read: () => Promise<T>): Promise<T> {
  let reads = readsOfJob.get(ctx);
  if (!reads) readsOfJob.set(ctx, (reads = new Map<string, Promise<unknown>>()));
  let value = reads.get(key) as Promise<T> | undefined;
  if (!value) reads.set(key, (value = read()));
  return value;
}
