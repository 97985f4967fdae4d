/**
 * What the agent tells the gateway about itself that the gateway cannot see (issue 16): whether
 * the POS database answers, how many jobs run, the last thing that failed here, and its own
 * wall clock. Sent in the hello and in a heartbeat every 15 s.
 */
import { release, platform, arch } from 'node:os';
import { ERROR_STATUS, isErrorCode } from '../protocol/errors.js';
import type { AgentHealth, HelloMessage, ResultMessage } from '../protocol/messages.js';

/** A ping that takes longer than this counts as unreachable: the heartbeat must not wait on it. */
export const DATABASE_CHECK_MS = 3_000;

export interface HealthReporterOptions {
  pingDatabase: () => Promise<void>;
  jobsRunning: () => number;
  /** The branch server's wall clock (Date.now unless given), which may be off the gateway's. */
  wallClock?: () => number;
}

export class HealthReporter {
  #posDatabase: AgentHealth['posDatabase'] = 'ok';
  #lastError: AgentHealth['lastError'] = null;
  readonly #clock: () => number;
  readonly startedAt: string;

  constructor(private readonly opts: HealthReporterOptions) {
    this.#clock = opts.wallClock ?? Date.now;
    this.startedAt = new Date(this.#clock()).toISOString();
  }

  /** What the hello adds to the agent's identity. */
  identity(): Pick<HelloMessage, 'nodeVersion' | 'os' | 'startedAt'> {
    return { nodeVersion: process.version, os: `${platform()} ${release()} ${arch()}`, startedAt: this.startedAt };
  }

  /** Remembers a job that failed on this side (5xx): the caller's mistakes (4xx) are not the branch's errors. */
  noteResult(result: ResultMessage): void {
    if (result.ok) return;
    const { code, message } = result.error;
    if (isErrorCode(code) && ERROR_STATUS[code] < 500) return;
    this.#failed(`${code}: ${message}`);
  }

  /** Pings the POS database and returns the report; never throws. */
  async check(): Promise<AgentHealth> {
    try {
      await answersWithin(this.opts.pingDatabase, DATABASE_CHECK_MS);
      this.#posDatabase = 'ok';
    } catch (error) {
      if (this.#posDatabase === 'ok') this.#failed(`POS database unreachable: ${(error as Error).message}`);
      this.#posDatabase = 'unreachable';
    }
    return this.snapshot();
  }

  /** The report as last checked, without waiting for the database. */
  snapshot(): AgentHealth {
    return {
      sentAt: new Date(this.#clock()).toISOString(),
      posDatabase: this.#posDatabase,
      jobsRunning: this.opts.jobsRunning(),
      lastError: this.#lastError,
    };
  }

  #failed(message: string): void {
    this.#lastError = { message: message.slice(0, 500), at: new Date(this.#clock()).toISOString() };
  }
}

/** Resolves when `ping` does within `ms`; rejects with its error, or when it has not answered by then. */
export async function answersWithin(ping: () => Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
