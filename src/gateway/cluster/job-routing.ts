/**
 * Jobs between the instances of a cluster, over NATS with one subject per branch: the instance
 * holding a branch's agent subscribes to that branch's subject; any other instance sends the job
 * there (routed-call.ts) and answers its client with the reply. Nobody subscribed means no agent
 * is connected anywhere: answered at once, as an offline agent is by a single gateway.
 */
import type { Msg, NatsConnection, Subscription } from 'nats';
import type { Logger } from 'pino';
import { AgentOfflineError, AgentTimeoutError, type AgentHub, type DispatchOutcome, type JobRequest } from '../hub.js';
import { RoutedCall, UNREACHABLE, jobSubject, probeSubject, type ProbeReply, type RoutedJob, type RoutedProbe, type RoutedReply } from './routed-call.js';

/**
 * How long the news of an agent's new connection may take to reach this instance after the new
 * holder starts taking the branch's jobs (it subscribes, then announces): far more than NATS
 * needs, far less than a job's timeout.
 */
const MOVE_MARGIN_MS = 100;

export class JobRouting {
  readonly #served = new Map<string, { jobs: Subscription; probes: Subscription }>();
  readonly #calls = new Map<string, Set<RoutedCall>>();
  /**
   * The routed jobs this instance runs (branch → route ids), for the probes of their senders;
   * by branch, so that a reply learns whether its branch runs any more without a scan of all.
   */
  readonly #running = new Map<string, Set<string>>();
  /**
   * Probe subscriptions of branches this instance no longer takes jobs for but still runs some
   * of: a sender that got 'offline' from a stale instance must hear from here that its job runs.
   */
  readonly #lingering = new Map<string, Subscription>();
  #serving = true;
  #linkUp = true;

  constructor(
    private readonly nc: NatsConnection,
    private readonly hub: AgentHub,
    private readonly log: Logger,
  ) {}

  /** This instance now holds the branch's agent: it takes the branch's jobs. */
  serve(licenseKey: string): void {
    if (!this.#serving || this.#served.has(licenseKey)) return;
    const jobs = this.nc.subscribe(jobSubject(licenseKey), {
      callback: (error, msg) => {
        if (!error) this.#run(licenseKey, msg);
      },
    });
    const probes =
      this.#lingering.get(licenseKey) ??
      this.nc.subscribe(probeSubject(licenseKey), {
        callback: (error, msg) => {
          if (!error) this.#answerProbe(licenseKey, msg);
        },
      });
    this.#lingering.delete(licenseKey);
    this.#served.set(licenseKey, { jobs, probes });
  }

  /**
   * The branch's agent left this instance. Drained, not dropped: a job another instance sent
   * before NATS heard of it is still on its way here, and is answered (offline, from here)
   * instead of leaving its sender to wait out the timeout.
   */
  stopServing(licenseKey: string): void {
    const served = this.#served.get(licenseKey);
    if (!served) return;
    this.#served.delete(licenseKey);
    served.jobs.drain().catch(() => undefined);
    if (this.#running.has(licenseKey)) this.#lingering.set(licenseKey, served.probes);
    else served.probes.drain().catch(() => undefined);
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
    for (const call of this.#calls.get(licenseKey) ?? []) {
      if (call.startedAt < before) call.fail(new AgentOfflineError("The branch's agent moved to another gateway while running the job."));
    }
  }

  /**
   * The NATS link went down or came back. While it is down a job for another instance's agent
   * cannot be sent: answered at once, as an offline agent is, rather than 504 after the job's
   * timeout and margin (32 s by default).
   */
  linkChanged(up: boolean): void {
    this.#linkUp = up;
  }

  async dispatch({ licenseKey, op, params, idempotency, timeoutMs }: JobRequest): Promise<DispatchOutcome> {
    if (!this.#linkUp) throw new AgentOfflineError(UNREACHABLE);
    const call = new RoutedCall(this.nc, licenseKey, { op, params, ...(idempotency ? { idempotency } : {}), timeoutMs }, this.log);
    const calls = this.#calls.get(licenseKey) ?? new Set();
    this.#calls.set(licenseKey, calls);
    calls.add(call);
    try {
      return await call.answer;
    } finally {
      calls.delete(call);
      if (calls.size === 0) this.#calls.delete(licenseKey);
    }
  }

  /** A job for the branch: run on its agent here, or answered offline when the agent is gone. */
  #run(licenseKey: string, msg: Msg): void {
    const { routeId, ...job } = msg.json<RoutedJob>();
    if (routeId) {
      const runs = this.#running.get(licenseKey) ?? new Set();
      this.#running.set(licenseKey, runs);
      runs.add(routeId);
    }
    void this.hub.dispatchHere({ ...job, licenseKey }).then(
      (outcome) => this.#reply(msg, licenseKey, routeId, { outcome }),
      (failure: unknown) =>
        this.#reply(
          msg,
          licenseKey,
          routeId,
          failure instanceof AgentTimeoutError
            ? { failure: 'timeout', message: failure.message }
            : { failure: 'offline', message: failure instanceof Error ? failure.message : String(failure) },
        ),
    );
  }

  #reply(msg: Msg, licenseKey: string, routeId: string | undefined, reply: RoutedReply): void {
    const runs = this.#running.get(licenseKey);
    if (routeId) runs?.delete(routeId);
    if (runs?.size === 0) this.#running.delete(licenseKey);
    const lingering = this.#lingering.get(licenseKey);
    if (lingering && !this.#running.has(licenseKey)) {
      this.#lingering.delete(licenseKey);
      lingering.drain().catch(() => undefined);
    }
    try {
      msg.respond(JSON.stringify(reply));
    } catch (error) {
      // The link closed under a job that outlived the hand-over: its sender times out.
      this.log.warn({ err: error, licenseKey }, 'could not answer a routed job');
    }
  }

  /**
   * Said by the holder of the agent, and by any instance still running the job; an instance that
   * is neither (its agent just left) says nothing, so that it cannot answer for the holder.
   */
  #answerProbe(licenseKey: string, msg: Msg): void {
    const running = this.#running.get(licenseKey)?.has(msg.json<RoutedProbe>().routeId) ?? false;
    if (running || this.hub.agentFor(licenseKey)) msg.respond(JSON.stringify({ running } satisfies ProbeReply));
  }
}
