/**
 * The jobs in flight, each waiting for its agent's result until its deadline. One timer for all
 * of them, armed for the earliest deadline, rather than one per job: at a thousand jobs a second
 * most are answered long before any deadline, and arming and clearing a timer each is work for
 * nothing.
 */
import type { JobError } from '../../protocol/messages.js';

export type JobOutcome = { ok: true; data: unknown } | { ok: false; error: JobError };

interface PendingJob<Agent> {
  agent: Agent;
  deadline: number;
  resolve: (outcome: JobOutcome) => void;
  reject: (error: Error) => void;
  timedOut: () => Error;
}

export class PendingJobs<Agent> {
  readonly #jobs = new Map<string, PendingJob<Agent>>();
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Infinity;

  get size(): number {
    return this.#jobs.size;
  }

  /** Waits for the job's outcome; rejects with `timedOut()` once `timeoutMs` passed. */
  wait(jobId: string, agent: Agent, timeoutMs: number, timedOut: () => Error): Promise<JobOutcome> {
    return new Promise((resolve, reject) => {
      const deadline = Date.now() + timeoutMs;
      this.#jobs.set(jobId, { agent, deadline, resolve, reject, timedOut });
      if (deadline < this.#armedFor) this.#arm(deadline);
    });
  }

  /** The job's result from `agent`; false when no job of that agent has this id (answered, timed out, or another's). */
  settle(jobId: string, agent: Agent, outcome: JobOutcome): boolean {
    const job = this.#jobs.get(jobId);
    if (!job || job.agent !== agent) return false;
    this.#remove(jobId);
    job.resolve(outcome);
    return true;
  }

  fail(jobId: string, error: Error): void {
    const job = this.#jobs.get(jobId);
    if (!job) return;
    this.#remove(jobId);
    job.reject(error);
  }

  /** Every job of an agent that left. */
  failAll(agent: Agent, error: Error): void {
    for (const [jobId, job] of this.#jobs) if (job.agent === agent) this.fail(jobId, error);
  }

  #remove(jobId: string): void {
    this.#jobs.delete(jobId);
    if (this.#jobs.size > 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#armedFor = at;
    // The sockets keep the process up while a job can still be answered; this timer need not.
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, at - Date.now())).unref();
  }

  #expire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const [jobId, job] of this.#jobs) {
      if (job.deadline <= now) this.fail(jobId, job.timedOut());
      else next = Math.min(next, job.deadline);
    }
    if (next < Infinity) this.#arm(next);
  }
}
