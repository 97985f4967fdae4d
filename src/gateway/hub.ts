/**
 * Which agent serves which branch, and the jobs in flight to each. Agents connect to
 * /agent/v1 with their branch token, say hello, and then receive jobs; each job waits for its
 * result until its deadline (504) or until its agent drops (503).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { BranchEvent } from '../protocol/events.js';
import {
  AGENT_PATH,
  CLOSE,
  HEARTBEAT,
  agentMessage,
  frameJson,
  helloMessage,
  resultMessage,
  type JobError,
  type JobMessage,
  type UpgradeMessage,
  type UpgradeProgressMessage,
} from '../protocol/messages.js';
import { clockOffsetMs } from './fleet/status-store.js';
import { sha256 } from './secrets.js';
import type { GatewayStore } from './store.js';

export class AgentOfflineError extends Error {}
export class AgentTimeoutError extends Error {}

export interface DispatchOutcome {
  jobId: string;
  workerId: string;
  dispatchedAt: string;
  ok: boolean;
  data?: unknown;
  error?: JobError;
}

interface ConnectedAgent {
  ws: WebSocket;
  licenseKey: string;
  /** Hash of the token it connected with, checked again when its branch changes. */
  tokenHash: string;
  workerId: string;
  agentVersion: string;
  posVersion: string | null;
  connectedAt: Date;
  /**
   * When the agent said hello, on its own clock (its hello's health.sentAt; the gateway's time
   * for agents that do not report it): instances whose clocks disagree still agree on which of
   * one agent's connections is the newer.
   */
  helloSentAt: Date;
  lastSeen: number;
  /** The last ping's round trip, for the clock offset (0 until the first pong). */
  roundTripMs: number;
  pingSentAt: number;
  /** `process.platform` of the agent, from its hello's `os`; null for agents that do not say. */
  platform: string | null;
  /** Its fleet status writes, one after the other: a disconnect is never written before its hello. */
  statusWrites: Promise<void>;
}

export interface UpgradeListener {
  connected(licenseKey: string, platform: string | null): void;
  progress(licenseKey: string, report: UpgradeProgressMessage): void;
}

interface PendingJob {
  agent: ConnectedAgent;
  resolve: (outcome: { ok: boolean; data?: unknown; error?: JobError }) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * What a cluster (./cluster/) adds to a hub: it hears which agents connect here and leave, and
 * carries jobs for branches whose agent is connected to another instance.
 */
export interface HubCluster {
  /** `helloSentAt`: on the agent's clock (ConnectedAgent). */
  agentConnected(licenseKey: string, helloSentAt: Date): void;
  agentLeft(licenseKey: string): void;
  /** Rejects with AgentOfflineError when no instance holds the branch, AgentTimeoutError past `timeoutMs`. */
  dispatchElsewhere(
    licenseKey: string,
    op: string,
    params: unknown,
    idempotency: JobMessage['idempotency'] | undefined,
    timeoutMs: number,
  ): Promise<DispatchOutcome>;
}

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

/**
 * The agent's share of the time the gateway waits: a little less, so that a write the agent
 * commits at the end of its budget is answered before the gateway gives up on it (the job's
 * trip to the agent comes out of the difference).
 */
export function agentBudget(timeoutMs: number): number {
  return Math.max(1, timeoutMs - Math.min(1_000, Math.floor(timeoutMs / 10)));
}

export class AgentHub {
  readonly #wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });
  readonly #agents = new Map<string, ConnectedAgent>();
  /** Sockets past the token check that have not said hello yet: `revalidate` covers them too. */
  readonly #greeting = new Set<{ ws: WebSocket; licenseKey: string; tokenHash: string }>();
  /** Bumped by every `revalidate`: a token check that straddles one is run again. */
  #tokenGeneration = 0;
  readonly #pending = new Map<string, PendingJob>();
  readonly #pinger: NodeJS.Timeout;
  #closing = false;
  /** A rolling restart: no new agent is accepted, and the ones here are sent elsewhere. */
  #draining = false;
  #upgrades: UpgradeListener | undefined;
  #cluster: HubCluster | undefined;

  constructor(private readonly opts: HubOptions) {
    const interval = opts.pingIntervalMs ?? HEARTBEAT.pingIntervalMs;
    const deadAfter = opts.deadAfterMs ?? HEARTBEAT.deadAfterMs;
    this.#pinger = setInterval(() => {
      for (const agent of this.#agents.values()) {
        if (Date.now() - agent.lastSeen > deadAfter) {
          agent.ws.terminate();
        } else {
          agent.pingSentAt = Date.now();
          agent.ws.ping();
        }
      }
    }, interval);
    this.#pinger.unref();
  }

  /** Takes over HTTP upgrades to /agent/v1 on the gateway's server. */
  attach(server: Server): void {
    server.on('upgrade', (req, socket, head) => {
      void this.#upgrade(req, socket, head);
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
   * clock: an older connection here is closed (its jobs fail as with any dropped socket, and are
   * retried with their keys).
   */
  supersede(licenseKey: string, helloSentAt: Date): void {
    const agent = this.#agents.get(licenseKey);
    if (!agent || agent.helloSentAt >= helloSentAt) return;
    this.opts.log.info({ licenseKey, workerId: agent.workerId }, 'agent connected to another gateway; closing its old connection');
    agent.ws.close(CLOSE.replaced, 'replaced by a connection to another gateway');
  }

  /**
   * For a rolling restart: refuses new agents, lets the jobs in flight finish (up to
   * `graceMs`), then tells every agent to reconnect to another gateway.
   */
  async drain(graceMs: number): Promise<void> {
    this.#draining = true;
    const until = Date.now() + graceMs;
    while (this.#pending.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    for (const agent of this.#agents.values()) if (agent.ws.readyState === agent.ws.OPEN) agent.ws.send(JSON.stringify({ type: 'reconnect' }));
  }

  /** Who drives rollouts: told of every agent that says hello and of every upgrade report. */
  listenForUpgrades(listener: UpgradeListener): void {
    this.#upgrades = listener;
  }

  /** Sends an upgrade order to the branch's connected agent; false when none is connected. */
  sendUpgrade(licenseKey: string, message: UpgradeMessage): boolean {
    const agent = this.#agents.get(licenseKey);
    if (!agent) return false;
    agent.ws.send(JSON.stringify(message));
    return true;
  }

  get connectedCount(): number {
    return this.#agents.size;
  }

  /** Runs a job on the branch's agent, here or (cluster mode) on the instance that holds it. */
  dispatch(
    licenseKey: string,
    op: string,
    params: unknown,
    idempotency?: JobMessage['idempotency'],
    timeoutMs = this.opts.jobTimeoutMs,
  ): Promise<DispatchOutcome> {
    if (!this.#agents.has(licenseKey) && this.#cluster) return this.#cluster.dispatchElsewhere(licenseKey, op, params, idempotency, timeoutMs);
    return this.dispatchHere(licenseKey, op, params, idempotency, timeoutMs);
  }

  /** Runs a job on the branch's agent if it is connected to this instance. */
  async dispatchHere(
    licenseKey: string,
    op: string,
    params: unknown,
    idempotency: JobMessage['idempotency'] | undefined,
    timeoutMs: number,
  ): Promise<DispatchOutcome> {
    const agent = this.#agents.get(licenseKey);
    if (!agent) throw new AgentOfflineError(`No agent is connected for branch ${licenseKey}.`);
    const jobId = randomUUID();
    const dispatchedAt = new Date().toISOString();
    const job: JobMessage = { type: 'job', jobId, op, params, budgetMs: agentBudget(timeoutMs), ...(idempotency ? { idempotency } : {}) };
    const outcome = await new Promise<{ ok: boolean; data?: unknown; error?: JobError }>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(jobId);
        reject(new AgentTimeoutError(`The agent of branch ${licenseKey} did not answer within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.#pending.set(jobId, { agent, resolve, reject, timer });
      agent.ws.send(JSON.stringify(job), (error) => {
        if (!error) return;
        clearTimeout(timer);
        this.#pending.delete(jobId);
        reject(new AgentOfflineError(`The agent of branch ${licenseKey} disconnected.`));
      });
    });
    return { jobId, workerId: agent.workerId, dispatchedAt, ...outcome };
  }

  /**
   * A result this gateway cannot read answers its request at once, rather than leaving the
   * client to wait for the timeout; whether the job ran is unknown, and a retry with the same
   * Idempotency-Key is answered from the agent's own record if it did.
   */
  #unreadableResult(agent: ConnectedAgent, message: unknown, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): void {
    const jobId = (message as { jobId?: unknown }).jobId;
    const pending = typeof jobId === 'string' ? this.#pending.get(jobId) : undefined;
    this.opts.log.error(
      { licenseKey: agent.licenseKey, jobId, issues: issues.map((i) => `${i.path.join('.')}: ${i.message}`) },
      'agent sent a result that does not match the protocol',
    );
    if (!pending || pending.agent !== agent) return;
    clearTimeout(pending.timer);
    this.#pending.delete(jobId as string);
    pending.resolve({
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
    if (agent.ws.readyState === agent.ws.OPEN) agent.ws.send(JSON.stringify({ type: 'eventsAck', ids: events.map((e) => e.id) }));
  }

  /**
   * Writes what the fleet endpoints show, in order per connection and off the message path: the
   * store being down costs the fleet view its freshness, never a job.
   */
  #recordStatus(agent: ConnectedAgent, write: (fleet: GatewayStore['fleet']) => Promise<void>): void {
    agent.statusWrites = agent.statusWrites
      .then(() => write(this.opts.store.fleet))
      .catch((error: unknown) => this.opts.log.warn({ err: error, licenseKey: agent.licenseKey }, 'fleet status not recorded'));
  }

  /** Disconnects every agent, and records that they left before the store is closed after it. */
  async close(): Promise<void> {
    clearInterval(this.#pinger);
    this.#closing = true;
    const agents = [...this.#agents.values()];
    const at = new Date();
    for (const agent of agents) {
      agent.ws.close(CLOSE.shuttingDown, 'gateway stopping');
      this.#recordStatus(agent, (fleet) => fleet.disconnected(agent.licenseKey, agent.workerId, at));
    }
    for (const ws of this.#wss.clients) ws.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    await Promise.all(agents.map((a) => a.statusWrites));
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

  async #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://gateway').pathname;
    if (path !== AGENT_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    if (this.#draining) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
      return;
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const tokenHash = token ? sha256(token) : undefined;
    let licenseKey: string | null = null;
    try {
      licenseKey = tokenHash ? await this.#branchForTokenHash(tokenHash) : null;
    } catch (error) {
      this.opts.log.error({ err: error }, 'agent token check failed');
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
      return;
    }
    if (!licenseKey || !tokenHash) {
      this.opts.log.warn({ remote: req.socket.remoteAddress }, 'agent refused: unknown token');
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    const branch = licenseKey;
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws, branch, tokenHash));
  }

  #accept(ws: WebSocket, licenseKey: string, tokenHash: string): void {
    let agent: ConnectedAgent | undefined;
    const greeting = { ws, licenseKey, tokenHash };
    this.#greeting.add(greeting);
    const helloTimer = setTimeout(() => ws.close(CLOSE.badHello, 'no hello'), this.opts.helloTimeoutMs ?? 10_000);
    const touch = () => {
      if (agent) agent.lastSeen = Date.now();
    };
    ws.on('pong', () => {
      touch();
      if (agent && agent.pingSentAt > 0) agent.roundTripMs = Date.now() - agent.pingSentAt;
    });
    ws.on('ping', touch);
    ws.on('message', (raw) => {
      touch();
      const message = frameJson(raw);
      if (message === undefined) return;
      if (!agent) {
        const hello = helloMessage.safeParse(message);
        if (!hello.success || hello.data.licenseKey !== licenseKey) {
          this.opts.log.warn({ licenseKey }, 'agent refused: hello missing or for another branch');
          ws.close(hello.success ? CLOSE.unauthorized : CLOSE.badHello, 'bad hello');
          return;
        }
        clearTimeout(helloTimer);
        this.#greeting.delete(greeting);
        const { workerId, agentVersion, posVersion } = hello.data;
        const connectedAt = new Date();
        const helloSentAt = hello.data.health ? new Date(hello.data.health.sentAt) : connectedAt;
        agent = {
          ws,
          licenseKey,
          tokenHash,
          workerId,
          agentVersion,
          posVersion,
          connectedAt,
          helloSentAt,
          lastSeen: Date.now(),
          roundTripMs: 0,
          pingSentAt: 0,
          platform: hello.data.os?.split(' ')[0] ?? null,
          statusWrites: Promise.resolve(),
        };
        const previous = this.#agents.get(licenseKey);
        this.#agents.set(licenseKey, agent);
        if (previous) previous.ws.close(CLOSE.replaced, 'replaced by a newer connection');
        this.#cluster?.agentConnected(licenseKey, helloSentAt);
        ws.send(JSON.stringify({ type: 'welcome' }));
        const h = hello.data;
        const report = h.health ? { health: h.health, clockOffsetMs: clockOffsetMs(h.health.sentAt, connectedAt.getTime(), 0) } : null;
        const identity = {
          licenseKey,
          workerId,
          agentVersion,
          posVersion,
          nodeVersion: h.nodeVersion ?? null,
          os: h.os ?? null,
          agentStartedAt: h.startedAt ? new Date(h.startedAt) : null,
        };
        this.#recordStatus(agent, (fleet) => fleet.connected(identity, report, connectedAt));
        this.#upgrades?.connected(licenseKey, agent.platform);
        this.opts.log.info({ licenseKey, workerId: agent.workerId, agentVersion: agent.agentVersion, posVersion: agent.posVersion }, 'agent connected');
        return;
      }
      // Results are most of the traffic: check them against their own schema, not the union.
      const type = typeof message === 'object' && message !== null && 'type' in message ? message.type : undefined;
      const parsed = (type === 'result' ? resultMessage : agentMessage).safeParse(message);
      if (!parsed.success) {
        if (type === 'result') this.#unreadableResult(agent, message, parsed.error.issues);
        return;
      }
      if (parsed.data.type === 'events') {
        void this.#takeEvents(agent, parsed.data.events);
        return;
      }
      if (parsed.data.type === 'heartbeat') {
        const current = agent;
        const report = { health: parsed.data, clockOffsetMs: clockOffsetMs(parsed.data.sentAt, Date.now(), current.roundTripMs) };
        this.#recordStatus(current, (fleet) => fleet.heartbeat(licenseKey, current.workerId, report, new Date()));
        return;
      }
      if (parsed.data.type === 'upgrade') {
        this.#upgrades?.progress(licenseKey, parsed.data);
        return;
      }
      if (parsed.data.type !== 'result') return;
      const pending = this.#pending.get(parsed.data.jobId);
      if (!pending || pending.agent !== agent) return;
      clearTimeout(pending.timer);
      this.#pending.delete(parsed.data.jobId);
      pending.resolve(parsed.data.ok ? { ok: true, data: parsed.data.data } : { ok: false, error: parsed.data.error });
    });
    ws.on('close', () => {
      clearTimeout(helloTimer);
      this.#greeting.delete(greeting);
      if (!agent) return;
      if (this.#agents.get(licenseKey) === agent) {
        this.#agents.delete(licenseKey);
        this.#cluster?.agentLeft(licenseKey);
        this.opts.log.info({ licenseKey, workerId: agent.workerId }, 'agent disconnected');
      }
      const left = agent;
      if (!this.#closing) this.#recordStatus(left, (fleet) => fleet.disconnected(licenseKey, left.workerId, new Date()));
      for (const [jobId, pending] of this.#pending) {
        if (pending.agent !== agent) continue;
        clearTimeout(pending.timer);
        this.#pending.delete(jobId);
        pending.reject(new AgentOfflineError(`The agent of branch ${licenseKey} disconnected while running the job.`));
      }
    });
    ws.on('error', () => undefined);
  }
}
