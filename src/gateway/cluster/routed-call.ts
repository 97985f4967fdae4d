/**
 * One job sent over NATS to whichever instance holds its branch's agent, and the wait for its
 * answer. More than one instance may receive it: the holder, and one whose connection to the
 * agent was replaced or dropped a moment ago, whose subscription is still being drained. That one
 * answers 'offline', and it may answer first; taken as final, the client was told 503 while the
 * holder ran the job (and committed a write). So an 'offline' ends the wait only once the
 * instances still serving the branch say none of them is running the job (`RoutedProbe`):
 * nobody serving it answers at once (no responders), as when no instance held the agent at all.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, createInbox, type Msg, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { AgentOfflineError, AgentTimeoutError, type DispatchOutcome, type JobRequest } from '../hub.js';

export const jobSubject = (licenseKey: string) => `branch-agent.jobs.${licenseKey}`;
/** Where the instances serving a branch say whether they are running a routed job. */
export const probeSubject = (licenseKey: string) => `branch-agent.running.${licenseKey}`;

/** The branch is the subject's; `routeId` names this sending of the job, for probes. */
export type RoutedJob = Omit<JobRequest, 'licenseKey' | 'claim'> & { routeId?: string };

export type RoutedReply = { outcome: DispatchOutcome } | { failure: 'offline' | 'timeout'; message: string };

export interface RoutedProbe {
  routeId: string;
}

/** Answered only by an instance that runs the job or holds the branch's agent. */
export interface ProbeReply {
  running: boolean;
}

/** Beyond the job's own timeout, which the serving instance enforces and answers. */
const ROUTING_MARGIN_MS = 2_000;

const NO_AGENT = 'No agent is connected for this branch.';
export const UNREACHABLE = "The branch's agent cannot be reached from this gateway right now.";

const noResponders = (msg: Msg) => msg.data.length === 0 && msg.headers?.code === 503;

export class RoutedCall {
  readonly startedAt = Date.now();
  readonly answer: Promise<DispatchOutcome>;
  #settle!: (outcome: DispatchOutcome | Error) => void;

  constructor(
    private readonly nc: NatsConnection,
    private readonly licenseKey: string,
    job: Omit<RoutedJob, 'routeId'>,
    private readonly log: Logger,
  ) {
    const routeId = randomUUID();
    const deadline = this.startedAt + job.timeoutMs + ROUTING_MARGIN_MS;
    this.answer = new Promise<DispatchOutcome>((resolve, reject) => {
      this.#settle = (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome));
    });
    const timer = setTimeout(() => {
      this.log.warn({ licenseKey, op: job.op }, 'the gateway holding the agent did not answer a routed job');
      this.fail(new AgentTimeoutError(`The branch's agent did not answer within ${job.timeoutMs} ms.`));
    }, deadline - this.startedAt);
    try {
      // Its own inbox, not a request's: a reply after the first (the holder's, after a stale
      // instance's 'offline') must still reach this call. Replies come in the order their
      // senders sent them, which is what the probe's answer relies on.
      const inbox = createInbox();
      const replies = this.nc.subscribe(inbox, { callback: (error, msg) => this.#replied(error ? undefined : msg, routeId, deadline) });
      const finished = () => {
        clearTimeout(timer);
        replies.unsubscribe();
      };
      void this.answer.then(finished, finished);
      this.nc.publish(jobSubject(licenseKey), JSON.stringify({ ...job, routeId } satisfies RoutedJob), { reply: inbox });
    } catch (error) {
      clearTimeout(timer);
      this.#unreachable(error);
    }
  }

  /** Ends the wait (the first answer wins); the job may still run where it was received. */
  fail(error: Error): void {
    this.#finish(error);
  }

  #finish(outcome: DispatchOutcome | Error): void {
    this.#settle(outcome);
    this.#settle = () => undefined;
  }

  #replied(msg: Msg | undefined, routeId: string, deadline: number): void {
    if (!msg) return this.#unreachable(undefined);
    if (noResponders(msg)) return this.fail(new AgentOfflineError(NO_AGENT));
    const reply = msg.json<RoutedReply>();
    if ('outcome' in reply) {
      this.#finish(reply.outcome);
    } else if (reply.failure === 'timeout') {
      this.fail(new AgentTimeoutError(reply.message));
    } else {
      this.#probe(routeId, reply.message, deadline);
    }
  }

  /**
   * Asks the instances serving the branch whether one of them runs the job. One that received it
   * took it before this probe (NATS keeps the order of what one sender sends, and the probe went
   * out after the job), and whatever it answered the job came before its answer here.
   */
  #probe(routeId: string, message: string, deadline: number): void {
    const timeout = Math.max(1, deadline - Date.now());
    this.nc.request(probeSubject(this.licenseKey), JSON.stringify({ routeId } satisfies RoutedProbe), { timeout }).then(
      (msg) => {
        if (!msg.json<ProbeReply>().running) this.fail(new AgentOfflineError(message));
      },
      (error: unknown) => {
        const code = (error as { code?: unknown }).code;
        if (code === ErrorCode.NoResponders) this.fail(new AgentOfflineError(message));
        // Unanswered until the deadline: the call's own timer answers it.
        else if (code !== ErrorCode.Timeout) this.#unreachable(error);
      },
    );
  }

  /** The NATS link itself is down: the branch cannot be reached from here, as if offline. */
  #unreachable(error: unknown): void {
    this.log.warn({ licenseKey: this.licenseKey, code: (error as { code?: unknown } | undefined)?.code }, 'cannot route a job to the other gateways');
    this.fail(new AgentOfflineError(UNREACHABLE));
  }
}
