/**
 * Which agent serves which branch, and the jobs in flight to each. Agents connect to
 * /agent/v1 with their branch token (hub/admission.ts), say hello (hub/greeting.ts), and then
 * receive jobs; each job waits for its result until its deadline (504) or until its agent drops
 * (503) (hub/pending-jobs.ts). One sweep pings them and drops the silent ones
 * (hub/connection-sweep.ts); what the fleet view shows of them is written in batches
 * (hub/status-batcher.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { BranchEvent } from '../protocol/events.js';
import { CLOSE, HEARTBEAT, agentMessage, frameJson, resultMessage, type AgentMessage, type JobMessage, type UpgradeMessage } from '../protocol/messages.js';
import { admit } from './hub/admission.js';
import { clockOffsetMs } from './hub/agent-status.js';
import { sendToAgent, type ConnectedAgent, type Greeting } from './hub/connected-agent.js';
import { sweepConnections } from './hub/connection-sweep.js';
import { queueEventBatch } from './hub/event-batches.js';
import { takeHello } from './hub/greeting.js';
import { HelloBudget } from './hub/hello-budget.js';
import { PendingJobs } from './hub/pending-jobs.js';
import { successfulResult } from './hub/result-frame.js';
import { StatusBatcher } from './hub/status-batcher.js';
import type { HubCluster, UpgradeListener } from './hub/listeners.js';
import type { GatewayStore } from './store.js';

import { AgentOfflineError, AgentTimeoutError, ClaimLostError, agentBudget, type DispatchOutcome, type JobRequest } from './hub/jobs.js';

export { AgentOfflineError, AgentTimeoutError, ClaimLostError, agentBudget, type DispatchOutcome, type JobRequest };

export type { HubCluster, UpgradeListener };

export interface HubOptions {
  store: GatewayStore;
  log: Logger;
  jobTimeoutMs: number;
  pingIntervalMs?: number;
  deadAfterMs?: number;
  helloTimeoutMs?: number;
  /** Stores events an agent reported; the agent is told it may forget them once this resolves. */
  onEvents?: (licenseKey: string, events: BranchEvent[]) => Promise<void>;
}

/** How often the connections are looked over: pings due, dead peers, hellos overdue. */
const SWEEP_MS = 1_000;
/** A replaced connection whose agent does not answer the close within this is cut. */
const REPLACED_CLOSE_GRACE_MS = 1_000;

export class AgentHub {
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });
  readonly #agents = new Map<string, ConnectedAgent>();
  /** Connections that left already: a replaced one leaves before its socket closes. */
  readonly #gone = new WeakSet<ConnectedAgent>();
  /** Sockets past the token check that have not said hello yet: `revalidate` covers them too. */
  readonly #greeting = new Set<Greeting>();
  /** Bumped by every `revalidate`: a token check that straddles one is run again. */
  #tokenGeneration = 0;
  readonly #pending = new PendingJobs<ConnectedAgent>();
  readonly #hellos = new HelloBudget();
  readonly #status: StatusBatcher;
  readonly #pingIntervalMs: number;
  readonly #sweeper: NodeJS.Timeout;
  #closing = false;
  /** A rolling restart: no new agent is accepted, and the ones here are sent elsewhere. */
  #draining = false;
  #upgrades: UpgradeListener | undefined;
  #cluster: HubCluster | undefined;

  constructor(private readonly opts: HubOptions) {
    this.#status = new StatusBatcher(opts.store.fleet, opts.log);
    this.#pingIntervalMs = opts.pingIntervalMs ?? HEARTBEAT.pingIntervalMs;
    const timing = { pingIntervalMs: this.#pingIntervalMs, deadAfterMs: opts.deadAfterMs ?? HEARTBEAT.deadAfterMs };
    this.#sweeper = setInterval(() => sweepConnections(this.#greeting, this.#agents.values(), timing), Math.min(SWEEP_MS, this.#pingIntervalMs));
    this.#sweeper.unref();
  }

  /** Takes over HTTP upgrades to /agent/v1 on the gateway's server. */
  attach(server: Server): void {
    server.on('upgrade', (req, socket, head) => {
      // Node hands the socket over without an error listener: a client that resets it while its
      // token is checked would otherwise throw in the gateway. ws listens from handleUpgrade on.
      const ignore = () => undefined;
      socket.on('error', ignore);
      void admit(req, socket, { draining: this.#draining, log: this.opts.log, branchForTokenHash: (hash) => this.#branchForTokenHash(hash) }).then(
        (admitted) => {
          if (!admitted) return;
          socket.off('error', ignore);
          this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, admitted.licenseKey, admitted.tokenHash));
        },
      );
    });
  }

  agentFor(licenseKey: string): { workerId: string; agentVersion: string; posVersion: string | null; connectedAt: Date; platform: string | null } | undefined {
    return this.#agents.get(licenseKey);
  }

  /** Cluster mode: other instances hear of this one's agents and carry jobs for theirs. */
  joinCluster(cluster: HubCluster): void {
    this.#cluster = cluster;
  }

  /**
   * Another instance accepted this branch's agent, which said hello at `helloSentAt` by its own
   * clock: an older connection here is replaced (its jobs fail as with any dropped socket, and
   * are retried with their keys).
   */
  supersede(licenseKey: string, helloSentAt: Date): void {
    const agent = this.#agents.get(licenseKey);
    if (!agent || agent.helloSentAt >= helloSentAt) return;
    this.opts.log.info({ licenseKey, workerId: agent.workerId }, 'agent connected to another gateway; closing its old connection');
    this.#replace(agent, 'replaced by a connection to another gateway');
  }

  /**
   * For a rolling restart: refuses new agents, lets the jobs in flight finish (up to
   * `graceMs`), then tells every agent to reconnect to another gateway.
   */
  async drain(graceMs: number): Promise<void> {
    this.#draining = true;
    const until = Date.now() + graceMs;
    while (this.#pending.size > 0 && Date.now() < until) await sleep(20);
    for (const agent of this.#agents.values()) if (agent.ws.readyState === agent.ws.OPEN) sendToAgent(agent.ws, { type: 'reconnect' });
  }

  /** Who drives rollouts: told of every agent that says hello and of every upgrade report. */
  listenForUpgrades(listener: UpgradeListener): void {
    this.#upgrades = listener;
  }

  /** Sends an upgrade order to the branch's connected agent; false when none is connected. */
  sendUpgrade(licenseKey: string, message: UpgradeMessage): boolean {
    const agent = this.#agents.get(licenseKey);
    if (!agent) return false;
    sendToAgent(agent.ws, message);
    return true;
  }

  get connectedCount(): number {
    return this.#agents.size;
  }

  /** Runs a job on the branch's agent, here or (cluster mode) on the instance that holds it. */
  dispatch(job: Omit<JobRequest, 'timeoutMs'> & { timeoutMs?: number }): Promise<DispatchOutcome> {
    const request: JobRequest = { ...job, timeoutMs: job.timeoutMs ?? this.opts.jobTimeoutMs };
    if (!this.#agents.has(job.licenseKey) && this.#cluster) {
      return request.claim ? this.#dispatchOnceClaimed(request) : this.#cluster.dispatchElsewhere(request);
    }
    return this.dispatchHere(request);
  }

  /** A job whose agent cannot hold its commit (elsewhere, or older) waits for its key's claim. */
  async #dispatchOnceClaimed({ claim, ...job }: JobRequest): Promise<DispatchOutcome> {
    if (!(await claim)) throw new ClaimLostError('The Idempotency-Key was not claimed.');
    return this.dispatch(job);
  }

  /** Runs a job on the branch's agent if it is connected to this instance. */
  async dispatchHere({ licenseKey, op, params, idempotency, timeoutMs, claim }: JobRequest): Promise<DispatchOutcome> {
    const agent = this.#agents.get(licenseKey);
    if (!agent) throw new AgentOfflineError('No agent is connected for this branch.');
    if (claim && !agent.holdsCommits) return this.#dispatchOnceClaimed({ licenseKey, op, params, idempotency, timeoutMs, claim });
    const jobId = randomUUID();
    const dispatchedAt = new Date().toISOString();
    const outcome = this.#pending.wait(jobId, agent, timeoutMs, () => new AgentTimeoutError(`The branch's agent did not answer within ${timeoutMs} ms.`));
    const job: JobMessage = {
      type: 'job',
      jobId,
      op,
      params,
      budgetMs: agentBudget(timeoutMs, agent.roundTripMs),
      ...(idempotency ? { idempotency } : {}),
      ...(claim ? { hold: true } : {}),
    };
    sendToAgent(agent.ws, job, (error) => {
      if (error) this.#pending.fail(jobId, new AgentOfflineError("The branch's agent disconnected."));
    });
    void claim?.then((won) => {
      if (agent.ws.readyState === agent.ws.OPEN) sendToAgent(agent.ws, { type: 'claim', jobId, won });
      if (!won) this.#pending.fail(jobId, new ClaimLostError('The Idempotency-Key was not claimed; the agent rolls the job back.'));
    });
    // Spelled out rather than spread: V8 kept spread results until a major collection (routes/envelope.ts).
    const settled = await outcome;
    return settled.ok
      ? { jobId, workerId: agent.workerId, dispatchedAt, ok: true, data: settled.data }
      : { jobId, workerId: agent.workerId, dispatchedAt, ok: false, error: settled.error };
  }

  /** Disconnects every agent, and records that they left before the store is closed after it. */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#closing = true;
    const at = new Date();
    for (const agent of this.#agents.values()) {
      agent.ws.close(CLOSE.shuttingDown, 'gateway stopping');
      this.#status.record({ kind: 'disconnected', licenseKey: agent.licenseKey, workerId: agent.workerId, connectionId: agent.connectionId, at });
    }
    for (const ws of this.#wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    await this.#status.flush();
  }

  /**
   * Disconnects the agent of a branch (of every branch when undefined) whose token is no longer
   * the branch's: `keys add-branch` issued a new one. An agent holding the new token reconnects.
   */
  async revalidate(licenseKey?: string): Promise<void> {
    this.#tokenGeneration++;
    const connections = [...this.#agents.values(), ...this.#greeting].filter((c) => licenseKey === undefined || c.licenseKey === licenseKey);
    for (const connection of connections) {
      let owner: string | null;
      try {
        owner = await this.opts.store.branchForAgentTokenHash(connection.tokenHash);
      } catch (error) {
        this.opts.log.error({ err: error, licenseKey: connection.licenseKey }, 'could not check an agent token again');
        continue;
      }
      if (owner === connection.licenseKey) continue;
      this.opts.log.warn({ licenseKey: connection.licenseKey }, 'agent disconnected: its token was replaced');
      connection.ws.close(CLOSE.unauthorized, 'agent token replaced');
    }
  }

  /** The branch of a token hash, checked again if a `revalidate` ran while the store answered. */
  async #branchForTokenHash(tokenHash: string): Promise<string | null> {
    for (;;) {
      const generation = this.#tokenGeneration;
      const licenseKey = await this.opts.store.branchForAgentTokenHash(tokenHash);
      if (generation === this.#tokenGeneration) return licenseKey;
    }
  }

  #accept(ws: WebSocket, licenseKey: string, tokenHash: string): void {
    const greeting: Greeting = { ws, licenseKey, tokenHash, helloDeadline: Date.now() + (this.opts.helloTimeoutMs ?? 10_000) };
    this.#greeting.add(greeting);
    let agent: ConnectedAgent | undefined;
    ws.on('pong', () => {
      if (!agent) return;
      agent.lastSeen = Date.now();
      if (agent.pingSentAt > 0) agent.roundTripMs = agent.lastSeen - agent.pingSentAt;
    });
    ws.on('ping', () => {
      if (!agent) return;
      agent.lastSeen = Date.now();
      agent.peerPingAt = agent.lastSeen;
    });
    ws.on('message', (raw) => {
      if (agent) this.#received(agent, raw);
      else agent = this.#hello(greeting, raw);
    });
    ws.on('close', () => {
      this.#greeting.delete(greeting);
      if (agent) this.#left(agent);
    });
    ws.on('error', () => undefined);
  }

  /** The first message: a hello, or the socket is closed. */
  #hello(greeting: Greeting, raw: RawData): ConnectedAgent | undefined {
    const { ws, licenseKey } = greeting;
    const message = frameJson(raw);
    if (message === undefined) return undefined;
    const outcome = takeHello(greeting, message, this.#pingIntervalMs);
    if (!outcome.accepted) {
      this.opts.log.warn({ licenseKey }, 'agent refused: hello missing or for another branch');
      ws.close(outcome.closeCode, 'bad hello');
      return undefined;
    }
    const budget = this.#hellos.take(licenseKey);
    if (budget !== 'ok') {
      if (budget === 'refusedFirst') this.opts.log.warn({ licenseKey }, 'agent refused: it says hello too often; closing its connections until it slows down');
      ws.close(CLOSE.tooManyHellos, 'too many hellos');
      return undefined;
    }
    const { agent } = outcome;
    this.#greeting.delete(greeting);
    const previous = this.#agents.get(licenseKey);
    this.#agents.set(licenseKey, agent);
    if (previous) this.#replace(previous, 'replaced by a newer connection');
    this.#cluster?.agentConnected(licenseKey, agent.helloSentAt);
    sendToAgent(ws, { type: 'welcome' });
    this.#status.record(outcome.change);
    this.#upgrades?.connected(licenseKey, agent.platform);
    this.opts.log.info({ licenseKey, workerId: agent.workerId, agentVersion: agent.agentVersion, posVersion: agent.posVersion }, 'agent connected');
    return agent;
  }

  #received(agent: ConnectedAgent, raw: RawData): void {
    agent.lastSeen = Date.now();
    const message = frameJson(raw);
    if (message === undefined) return;
    const result = successfulResult(message);
    if (result) return void this.#pending.settle(result.jobId, agent, { ok: true, data: result.data });
    // The other results: checked against their own schema, not the union.
    const type = typeof message === 'object' && message !== null && 'type' in message ? message.type : undefined;
    const parsed = (type === 'result' ? resultMessage : agentMessage).safeParse(message);
    if (!parsed.success) {
      if (type === 'result') this.#unreadableResult(agent, message, parsed.error.issues);
      return;
    }
    this.#fromAgent(agent, parsed.data);
  }

  #fromAgent(agent: ConnectedAgent, message: AgentMessage): void {
    switch (message.type) {
      case 'result':
        this.#pending.settle(message.jobId, agent, message.ok ? { ok: true, data: message.data } : { ok: false, error: message.error });
        return;
      case 'heartbeat': {
        const report = { health: message, clockOffsetMs: clockOffsetMs(message.sentAt, agent.lastSeen, agent.roundTripMs) };
        this.#status.record({ kind: 'heartbeat', licenseKey: agent.licenseKey, workerId: agent.workerId, report, at: new Date(agent.lastSeen) });
        return;
      }
      case 'events':
        queueEventBatch(agent, () => this.#takeEvents(agent, message.events), this.opts.log);
        return;
      case 'upgrade':
        this.#upgrades?.progress(agent.licenseKey, message);
        return;
      case 'hello':
        return;
    }
  }

  /**
   * A result this gateway cannot read answers its request at once, rather than leaving the
   * client to wait for the timeout; whether the job ran is unknown, and a retry with the same
   * Idempotency-Key is answered from the agent's own record if it did.
   */
  #unreadableResult(agent: ConnectedAgent, message: unknown, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): void {
    const jobId = (message as { jobId?: unknown }).jobId;
    this.opts.log.error(
      { licenseKey: agent.licenseKey, jobId, issues: issues.map((i) => `${i.path.join('.')}: ${i.message}`) },
      'agent sent a result that does not match the protocol',
    );
    if (typeof jobId !== 'string') return;
    this.#pending.settle(jobId, agent, {
      ok: false,
      error: {
        code: 'agent_bad_result',
        message: 'The branch agent answered with a result the gateway cannot read; whether the job ran is unknown. Retry with the same Idempotency-Key.',
      },
    });
  }

  /**
   * Stores an agent's events, then acknowledges them. Events naming another branch are a bug of
   * that agent: logged and acknowledged unstored, so they do not come back forever. A store
   * failure acknowledges nothing: the agent sends them again.
   */
  async #takeEvents(agent: ConnectedAgent, events: BranchEvent[]): Promise<void> {
    const own = events.filter((e) => e.licenseKey === agent.licenseKey);
    if (own.length < events.length)
      this.opts.log.error({ licenseKey: agent.licenseKey, dropped: events.length - own.length }, 'agent sent events of another branch');
    try {
      await this.opts.onEvents?.(agent.licenseKey, own);
    } catch (error) {
      this.opts.log.error({ err: error, licenseKey: agent.licenseKey }, 'could not store events; the agent will send them again');
      return;
    }
    if (agent.ws.readyState === agent.ws.OPEN) sendToAgent(agent.ws, { type: 'eventsAck', ids: events.map((e) => e.id) });
  }

  /**
   * A connection its agent replaced leaves now, not when its close handshake ends: on a link cut
   * half-open (the agent's side gone, this side silent) ws waits 30 s for that, and meanwhile
   * this instance would keep the branch's jobs and send them to a socket nobody reads.
   */
  #replace(agent: ConnectedAgent, reason: string): void {
    this.#left(agent);
    agent.ws.close(CLOSE.replaced, reason);
    const cut = setTimeout(() => agent.ws.terminate(), REPLACED_CLOSE_GRACE_MS).unref();
    agent.ws.once('close', () => clearTimeout(cut));
  }

  /** The agent's connection ended (or was replaced): its jobs fail, and the fleet view hears it left. */
  #left(agent: ConnectedAgent): void {
    if (this.#gone.has(agent)) return;
    this.#gone.add(agent);
    const { licenseKey, workerId, connectionId } = agent;
    if (this.#agents.get(licenseKey) === agent) {
      this.#agents.delete(licenseKey);
      this.#cluster?.agentLeft(licenseKey);
      this.opts.log.info({ licenseKey, workerId }, 'agent disconnected');
    }
    if (!this.#closing) this.#status.record({ kind: 'disconnected', licenseKey, workerId, connectionId, at: new Date() });
    this.#pending.failAll(agent, new AgentOfflineError("The branch's agent disconnected while running the job."));
  }
}
