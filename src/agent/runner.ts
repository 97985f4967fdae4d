/**
 * Runs jobs from the gateway against the POS database: at most `concurrency` at once, each
 * validated again with its operation's schema, writes in one transaction with their
 * idempotency record, every outcome turned into a result message (never a thrown error).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { PosError } from '../protocol/errors.js';
import type { JobError, JobMessage, ResultMessage } from '../protocol/messages.js';
import { isConnectionError, isDeadlock, isLockTimeout, isNumericOverflow, isStatementTimeout, isUniqueViolation } from '../database-errors.js';
import type { PosDb } from '../pos/schema.js';
import { DEFAULT_PRINTER_RULE, type PrinterRule } from '../protocol/printer-rule.js';
import { markOrigins, originRows } from '../pos/events/origins.js';
import { recordedResult, recordOnce, recordResult } from '../pos/idempotency.js';
import type { OutsideEffect } from '../pos/context.js';
import type { Implementation } from '../pos/operation.js';
import type { PosRuntime } from '../pos/runtime.js';
import { ClaimLost, ClaimVerdicts } from './claim-verdicts.js';
import { EffectsInFlight } from './effects-in-flight.js';
import { JobSlots } from './job-slots.js';

export interface RunnerOptions {
  pos: PosRuntime;
  operations: ReadonlyMap<string, Implementation>;
  log: Logger;
  concurrency: number;
  idempotencyRetentionMs: number;
  /** Where printers may be; DEFAULT_PRINTER_RULE unless given. */
  printerRule?: PrinterRule;
  /** The branch server's wall clock (Date.now unless given), which may be minutes off the gateway's. */
  wallClock?: () => number;
}

class Deadline extends Error {}
/** The job's key was recorded by an earlier copy of it: this copy's transaction is rolled back. */
class AlreadyRecorded extends Error {}
/** The earlier copy that recorded the key is still printing past this copy's deadline. */
class EffectRunning extends Error {}

const keyOf = (idem: { scope: string; key: string }) => `${idem.scope}\u0000${idem.key}`;

/**
 * The key's record, read after the job's transaction failed: a read that fails as well (the
 * connection may still be down) finds none. A record of another request under the key is the
 * job's answer (idempotency_key_reused) where `reusedKey` 'throws'; asked only whether a commit
 * happened, it is not this attempt's and finds none, leaving the answer to the retry path.
 */
async function recordAfterFailure(
  db: PosDb,
  idem: NonNullable<JobMessage['idempotency']>,
  reusedKey: 'throws' | 'finds none',
): Promise<{ result: unknown } | undefined> {
  return recordedResult(db, idem).catch((error: unknown) => {
    if (reusedKey === 'throws' && error instanceof PosError) throw error;
    return undefined;
  });
}

/**
 * How often a write runs again after its transaction was rolled back whole: as the victim of a
 * deadlock with a terminal (common on SQL Server, where readers and writers block each other),
 * or because a concurrent copy of the same job committed first (the next run replays it).
 */
const MAX_RETRIES = 3;

/**
 * Jobs that print at once, apart from the others' `concurrency`: a printer that hangs holds a
 * print job for its timeouts, and such jobs must not take the slots sales, payments and closes
 * need. Both kinds' transactions together fit the default pool (8 + 2 of 10 connections).
 */
const PRINT_JOBS_AT_ONCE = 2;

export class JobRunner {
  readonly #slots: JobSlots;
  readonly #printSlots = new JobSlots(PRINT_JOBS_AT_ONCE);
  readonly #verdicts = new ClaimVerdicts();
  readonly #effects = new EffectsInFlight();

  constructor(private readonly opts: RunnerOptions) {
    this.#slots = new JobSlots(opts.concurrency);
  }

  /** Jobs running now, of both kinds. */
  get running(): number {
    return this.#slots.inUse + this.#printSlots.inUse;
  }

  /** Resolves when no job is running or waiting, nor a print's record being written (graceful shutdown). */
  async drained(): Promise<void> {
    while (this.#slots.busy > 0 || this.#printSlots.busy > 0 || this.#effects.size > 0) await sleep(20);
  }

  /** The gateway's verdict on a held job's key (claim-verdicts.ts). */
  claimDecided(jobId: string, won: boolean): void {
    this.#verdicts.decide(jobId, won);
  }

  /** The connection to the gateway closed: held jobs still waiting for their verdict roll back. */
  connectionLost(): void {
    this.#verdicts.abandonAll();
  }

  async run(job: JobMessage): Promise<ResultMessage> {
    // The budget counts from receipt on this process's monotonic clock: the wall clocks of the
    // branch server and the gateway may be minutes apart.
    const deadline = performance.now() + job.budgetMs;
    if (job.hold) this.#verdicts.expect(job.jobId);
    const impl = this.opts.operations.get(job.op);
    const slots = impl?.def.usesPrinter?.(job.params) ? this.#printSlots : this.#slots;
    await slots.acquire();
    try {
      if (performance.now() > deadline) throw new Deadline();
      const data = await this.#execute(job, impl, deadline);
      return { type: 'result', jobId: job.jobId, ok: true, data };
    } catch (error) {
      return { type: 'result', jobId: job.jobId, ok: false, error: this.#describe(job, error) };
    } finally {
      this.#verdicts.forget(job.jobId);
      slots.release();
    }
  }

  async #execute(job: JobMessage, impl: Implementation | undefined, deadline: number): Promise<unknown> {
    if (!impl) throw new PosError('not_found', `This agent does not know the operation ${job.op}.`);
    const parsed = impl.def.input.safeParse(job.params);
    if (!parsed.success) {
      throw new PosError('validation_failed', 'The job parameters do not match the operation schema.', {
        errors: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      });
    }
    const { pos, log } = this.opts;
    // Whole seconds: SQL Server's datetime keeps 1/300 s and would round .999 up to the next
    // second, so a time the API answers would differ from the one a later read shows.
    const clock = () => new Date(Math.floor((this.opts.wallClock ?? Date.now)() / 1000) * 1000);
    const base = {
      dialect: pos.dialect,
      schema: pos.schema,
      log: log.child({ jobId: job.jobId, op: job.op }),
      now: clock(),
      clock,
      printerRule: this.opts.printerRule ?? DEFAULT_PRINTER_RULE,
      deadline,
    };
    if (!impl.def.write) {
      try {
        return await impl.run({ ...base, db: pos.db }, parsed.data);
      } catch (error) {
        if (!isConnectionError(error) || performance.now() > deadline) throw error;
        // A pooled connection the server closed since its last use (a restart) fails on its
        // first statement, and the pool drops it: the read runs once more on another.
        return impl.run({ ...base, db: pos.db }, parsed.data);
      }
    }

    let afterCommit: Array<(db: PosDb) => Promise<void>> = [];
    let outside: OutsideEffect | undefined;
    let endEffect: (() => void) | undefined;
    // What the last attempt returned to its commit, set once its statements all succeeded.
    let committing: { result: unknown } | undefined;
    const idem = job.idempotency;
    const attempt = () =>
      pos.db.transaction().execute(async (trx) => {
        afterCommit = [];
        outside = undefined;
        committing = undefined;
        const result = await impl.run(
          {
            ...base,
            db: trx,
            afterCommit: (task) => afterCommit.push(task),
            outside: (effect) => {
              outside = effect;
            },
          },
          parsed.data,
        );
        const origins = originRows(job.jobId, impl.def.marks?.(parsed.data, result) ?? [], base.now);
        // The key is recorded last, with its marks, in one statement: all that a new job (the
        // common case) costs beyond its own statements.
        if (!idem) await markOrigins(trx, origins);
        else if (!(await recordOnce(trx, idem, job.op, result, base.now, this.opts.idempotencyRetentionMs, origins))) throw new AlreadyRecorded();
        // A held job commits only once the gateway has claimed its key (claim-verdicts.ts).
        await this.#claimWon(job, deadline);
        // Committing after the gateway gave up would apply a write the client was told failed.
        if (performance.now() > deadline) throw new Deadline();
        // From the commit until the effect and its records end, a retry of the key waits rather
        // than answer the record (a job without a key is tracked too, for drained()).
        if (outside) endEffect = this.#effects.begin(idem ? keyOf(idem) : `job\u0000${job.jobId}`);
        committing = { result };
        return result;
      });
    let result: unknown;
    for (let retries = 0; ; retries++) {
      try {
        result = await attempt();
        break;
      } catch (error) {
        // A commit whose confirmation the lost connection took: the key's record tells whether it
        // happened. Found, the record is this attempt's own (it inserted the record under the key's
        // lock, so no other copy could), and the write goes on as committed: its print is sent and
        // its housekeeping runs, rather than answer the record's `interrupted` and never print.
        if (committing && idem && isConnectionError(error) && (await recordAfterFailure(pos.db, idem, 'finds none'))) {
          result = committing.result;
          break;
        }
        endEffect?.();
        endEffect = undefined;
        if (error instanceof ClaimLost) throw error;
        // A copy of a job that already ran, stopped by its record or refused by what the first
        // copy wrote (an account it paid, a row it inserted): the first copy's answer is this one's,
        // once the first copy's print (if any) has ended.
        if (idem) {
          if (!(await this.#effects.settled(keyOf(idem), deadline))) throw new EffectRunning();
          const recorded = await recordAfterFailure(pos.db, idem, 'throws');
          if (recorded) return recorded.result;
        }
        // Stopped by a record that expired before it could be read: the key is free again.
        const purged = error instanceof AlreadyRecorded;
        const duplicate = idem !== undefined && isUniqueViolation(error);
        const deadlock = isDeadlock(error);
        // As a read's, once: the key's record, in the same transaction, tells whether a commit
        // the lost connection could not confirm happened (the retry answers it) or not (it runs).
        const connectionLost = idem !== undefined && retries === 0 && isConnectionError(error);
        if (!(purged || duplicate || deadlock || connectionLost) || retries >= MAX_RETRIES) throw error;
        if (performance.now() > deadline) throw new Deadline();
        if (deadlock) {
          base.log.warn({ retry: retries + 1 }, 'deadlock with another POS transaction; everything was rolled back, running again');
          await sleep(5 + Math.random() * 45);
        }
      }
    }
    if (outside) {
      const completed = await this.#completeOutside(job, base.log, outside, result);
      result = completed.result;
      // The answer does not wait for the records; a retry of the key does (effects-in-flight.ts).
      const end = endEffect;
      void completed.recorded.finally(() => end?.());
    } else {
      endEffect?.();
    }
    for (const task of afterCommit) {
      await task(pos.db).catch((error: unknown) => base.log.warn({ err: error }, 'housekeeping after the write failed; the write itself is committed'));
    }
    return result;
  }

  /** Once the gateway won a held job's key (at once for a job not held); ClaimLost or Deadline otherwise. */
  async #claimWon(job: JobMessage, deadline: number): Promise<void> {
    if (job.hold) await this.#verdicts.won(job.jobId, deadline, () => new Deadline());
  }

  /**
   * Runs a write's outside effect after its commit: the completed result, and the recording of it
   * for replay (with the effect's own records), which ends after the result is answered.
   */
  async #completeOutside(job: JobMessage, log: Logger, effect: OutsideEffect, result: unknown): Promise<{ result: unknown; recorded: Promise<unknown> }> {
    let done: Awaited<ReturnType<OutsideEffect>>;
    try {
      done = await effect(this.opts.pos.db);
    } catch (error) {
      // The write is committed: its answer stands, as its record says, and the failure is logged.
      log.error({ err: error }, 'the outside effect of a committed write failed');
      return { result, recorded: Promise.resolve() };
    }
    const completed = { ...(result as Record<string, unknown>), ...done.answer };
    // A record left as the write wrote it makes a retry answer "interrupted" instead of doing it
    // again. After the effect's own records, one statement at a time: the same order every time.
    const idem = job.idempotency;
    const recorded = idem
      ? done.recorded.then(() =>
          recordResult(this.opts.pos.db, idem, completed).catch((error: unknown) =>
            log.warn({ err: error }, 'could not record what the outside effect did; a retry answers what the write recorded'),
          ),
        )
      : done.recorded;
    return { result: completed, recorded };
  }

  #describe(job: JobMessage, error: unknown): JobError {
    if (error instanceof PosError) return { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
    if (error instanceof ClaimLost)
      return { code: 'idempotency_in_progress', message: "The gateway did not claim this request's Idempotency-Key; nothing was written." };
    if (error instanceof EffectRunning)
      return { code: 'idempotency_in_progress', message: 'The first request with this Idempotency-Key is still printing; retry shortly.' };
    if (error instanceof Deadline || isStatementTimeout(error))
      return { code: 'agent_timeout', message: 'The job passed its deadline before it could finish; nothing was written.' };
    if (isDeadlock(error)) {
      this.opts.log.warn({ jobId: job.jobId, op: job.op, err: error }, 'deadlocked on every attempt');
      return { code: 'pos_busy', message: 'Other point-of-sale transactions kept this write from finishing; nothing was written. Retry shortly.' };
    }
    if (isLockTimeout(error)) {
      this.opts.log.warn({ jobId: job.jobId, op: job.op }, 'a terminal held the records this job needs past the lock timeout');
      return { code: 'pos_busy', message: 'A point-of-sale terminal is holding the records this request needs; nothing was written. Retry shortly.' };
    }
    if (isNumericOverflow(error)) {
      this.opts.log.warn({ jobId: job.jobId, op: job.op, err: error }, 'a value did not fit its POS column');
      return {
        code: 'value_out_of_range',
        message: "A number in the request, or one it makes, is beyond what the point-of-sale's columns hold; nothing was written.",
      };
    }
    if (isConnectionError(error)) {
      this.opts.log.warn({ jobId: job.jobId, op: job.op, err: error }, 'POS database unavailable');
      return { code: 'pos_unavailable', message: 'The point-of-sale database is not reachable right now.' };
    }
    this.opts.log.error({ jobId: job.jobId, op: job.op, err: error }, 'job failed');
    return { code: 'internal_error', message: 'The agent failed to run the job.' };
  }
}
