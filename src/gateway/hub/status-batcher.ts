/**
 * The hub's fleet status writes, queued and written in batches off the message path: the store
 * being down costs the fleet view its freshness, never a job. Changes are written in the order
 * they happened (a disconnect is never written before its hello), a run of changes of one kind
 * and of different branches at a time, one statement per table for the run.
 *
 * A branch's heartbeats waiting together are one: the latest, keeping the last error an earlier
 * one reported. An agent beats every 15 s, but a compromised branch server holds its agent's
 * token and can send thousands a second: kept one by one, they grew the queue without bound and
 * were written one statement each (a run holds one change per branch), ahead of every other
 * branch's hello and beat, until the whole fleet showed offline.
 */
import type { Logger } from 'pino';
import type { StatusChange, StatusWriter } from './agent-status.js';

/** Soon enough for a fleet view read after a hello; long enough to gather a burst of them. */
const BATCH_AFTER_MS = 50;

export class StatusBatcher {
  #queue: StatusChange[] = [];
  /** Where in the queue each branch's heartbeat is, while nothing else of that branch came after it. */
  #beats = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly writer: StatusWriter,
    private readonly log: Logger,
  ) {}

  record(change: StatusChange): void {
    const licenseKey = licenseKeyOf(change);
    if (change.kind === 'heartbeat') {
      const at = this.#beats.get(licenseKey);
      const queued = at === undefined ? undefined : this.#queue[at];
      if (queued?.kind === 'heartbeat' && queued.workerId === change.workerId) {
        this.#queue[at!] = laterBeat(queued, change);
        return;
      }
      this.#beats.set(licenseKey, this.#queue.length);
    } else {
      this.#beats.delete(licenseKey);
    }
    this.#queue.push(change);
    if (this.#timer) return;
    this.#timer = setTimeout(() => void this.flush(), BATCH_AFTER_MS);
    this.#timer.unref();
  }

  /** Writes everything recorded so far, after what is being written; never throws. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const changes = this.#queue;
    this.#queue = [];
    this.#beats.clear();
    this.#writing = this.#writing.then(async () => {
      for (const run of runs(changes)) await this.#write(run);
    });
    return this.#writing;
  }

  /** A run the store refuses is written change by change, so one bad change loses only itself. */
  async #write(run: StatusChange[]): Promise<void> {
    try {
      await this.writer.write(run);
      return;
    } catch (error) {
      if (run.length === 1) {
        this.log.warn({ err: error, kind: run[0]!.kind, licenseKey: licenseKeyOf(run[0]!) }, 'fleet status not recorded');
        return;
      }
    }
    for (const change of run) await this.#write([change]);
  }
}

type Heartbeat = Extract<StatusChange, { kind: 'heartbeat' }>;

/** The later of two beats of one connection, with the earlier's error when it reports none (as writing both would keep). */
function laterBeat(earlier: Heartbeat, later: Heartbeat): Heartbeat {
  const lastError = later.report.health.lastError ?? earlier.report.health.lastError;
  return { ...later, report: { ...later.report, health: { ...later.report.health, lastError } } };
}

const licenseKeyOf = (change: StatusChange) => (change.kind === 'connected' ? change.agent.licenseKey : change.licenseKey);

/** Consecutive changes of one kind and of different branches: a set-based write applies them as in order. */
function* runs(changes: StatusChange[]): Generator<StatusChange[]> {
  let run: StatusChange[] = [];
  let branches = new Set<string>();
  for (const change of changes) {
    const licenseKey = licenseKeyOf(change);
    if (run.length > 0 && (run[0]!.kind !== change.kind || branches.has(licenseKey))) {
      yield run;
      run = [];
      branches = new Set();
    }
    run.push(change);
    branches.add(licenseKey);
  }
  if (run.length > 0) yield run;
}
