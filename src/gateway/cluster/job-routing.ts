/**
 * Jobs between the instances of a cluster, over NATS request/reply with one subject per branch:
 * the instance holding a branch's agent subscribes to that branch's subject; any other instance
 * sends the job there and answers its client with the reply. Nobody subscribed means no agent is
 * connected anywhere: answered at once, as an offline agent is by a single gateway.
 */
import { ErrorCode, type NatsConnection, type Subscription } from 'nats';
import type { Logger } from 'pino';
import { AgentOfflineError, AgentTimeoutError, type AgentHub, type DispatchOutcome, type JobRequest } from '../hub.js';

export const jobSubject = (licenseKey: string) => `branch-agent.jobs.${licenseKey}`;

/** The branch is the subject's. */
type RoutedJob = Omit<JobRequest, 'licenseKey'>;

type RoutedReply = { outcome: DispatchOutcome } | { failure: 'offline' | 'timeout'; message: string };

/** Beyond the job's own timeout, which the serving instance enforces and answers. */
const ROUTING_MARGIN_MS = 2_000;

/**
 * How long the news of an agent's new connection may take to reach this instance after the new
 * holder starts taking the branch's jobs (it subscribes, then announces): far more than NATS
 * needs, far less than a job's timeout.
 */
const MOVE_MARGIN_MS = 100;

interface Waiting {
  startedAt: number;
  reject: (error: Error) => void;
}

export class JobRouting {
  readonly #served = new Map<string, Subscription>();
  readonly #waiting = new Map<string, Set<Waiting>>();
  #serving = true;

  constructor(
    private readonly nc: NatsConnection,
    private readonly hub: AgentHub,
    private readonly log: Logger,
  ) {}

  /** This instance now holds the branch's agent: it takes the branch's jobs. */
  serve(licenseKey: string): void {
    if (!this.#serving || this.#served.has(licenseKey)) return;
    const subscription = this.nc.subscribe(jobSubject(licenseKey), {
      callback: (error, msg) => {
        if (error) return;
        const job = msg.json<RoutedJob>();
        void this.hub.dispatchHere({ ...job, licenseKey }).then(
          (outcome) => msg.respond(JSON.stringify({ outcome } satisfies RoutedReply)),
          (failure: unknown) => {
            const reply: RoutedReply =
              failure instanceof AgentTimeoutError
                ? { failure: 'timeout', message: failure.message }
                : { failure: 'offline', message: failure instanceof Error ? failure.message : String(failure) };
            msg.respond(JSON.stringify(reply));
          },
        );
      },
    });
    this.#served.set(licenseKey, subscription);
  }

  /**
   * The branch's agent left this instance. Drained, not dropped: a job another instance sent
   * before NATS heard of it is still on its way here, and is answered (offline, from here)
   * instead of leaving its sender to wait out the timeout.
   */
  stopServing(licenseKey: string): void {
    const subscription = this.#served.get(licenseKey);
    this.#served.delete(licenseKey);
    subscription?.drain().catch(() => undefined);
  }

  /** A rolling restart: jobs already taken are answered, new ones go to no one here. */
  stopServingAll(): void {
    this.#serving = false;
    for (const licenseKey of [...this.#served.keys()]) this.stopServing(licenseKey);
  }

  /**
   * The branch's agent connected to some instance just now: jobs sent before that went to a
   * connection that has since been replaced (or to an instance that died) and will not be
   * answered; they fail now, as jobs on a dropped socket do, rather than at their timeout.
   * "Before" by this instance's clock, on hearing of it: a job sent within MOVE_MARGIN_MS of
   * the news may already have reached the new holder, and waits for its answer.
   */
  agentMoved(licenseKey: string): void {
    const before = Date.now() - MOVE_MARGIN_MS;
    for (const waiting of this.#waiting.get(licenseKey) ?? []) {
      if (waiting.startedAt < before) waiting.reject(new AgentOfflineError("The branch's agent moved to another gateway while running the job."));
    }
  }

  async dispatch({ licenseKey, op, params, idempotency, timeoutMs }: JobRequest): Promise<DispatchOutcome> {
    const job: RoutedJob = { op, params, ...(idempotency ? { idempotency } : {}), timeoutMs };
    let waiting: Waiting | undefined;
    const moved = new Promise<never>((_resolve, reject) => {
      waiting = { startedAt: Date.now(), reject };
    });
    const set = this.#waiting.get(licenseKey) ?? new Set();
    this.#waiting.set(licenseKey, set);
    set.add(waiting!);
    try {
      const msg = await Promise.race([this.nc.request(jobSubject(licenseKey), JSON.stringify(job), { timeout: timeoutMs + ROUTING_MARGIN_MS }), moved]);
      const reply = msg.json<RoutedReply>();
      if ('outcome' in reply) return reply.outcome;
      throw reply.failure === 'timeout' ? new AgentTimeoutError(reply.message) : new AgentOfflineError(reply.message);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === ErrorCode.NoResponders) throw new AgentOfflineError('No agent is connected for this branch.');
      if (code === ErrorCode.Timeout) {
        this.log.warn({ licenseKey, op }, 'the gateway holding the agent did not answer a routed job');
        throw new AgentTimeoutError(`The branch's agent did not answer within ${timeoutMs} ms.`);
      }
      // The NATS link itself is down: the branch cannot be reached from here, as if offline.
      if (typeof code === 'string') {
        this.log.warn({ licenseKey, code }, 'cannot route a job to the other gateways');
        throw new AgentOfflineError("The branch's agent cannot be reached from this gateway right now.");
      }
      throw error;
    } finally {
      set.delete(waiting!);
      if (set.size === 0) this.#waiting.delete(licenseKey);
      // The race's loser is never awaited again: keep its rejection from surfacing.
      moved.catch(() => undefined);
    }
  }
}
