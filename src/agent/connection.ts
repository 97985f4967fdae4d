/**
 * The agent's outbound WebSocket to the gateway. It says hello, answers pings, treats a peer
 * silent for 45 s as dead, and reconnects forever: exponential backoff from 1 s to 60 s with
 * full jitter, reset once a connection has lasted 5 minutes. An outage logs one line when it
 * starts and one when it ends, not one per retry. With several gateways (a cluster) each retry
 * goes to the next one, and a gateway that stops for a restart says `reconnect`: the agent moves
 * at once, without a backoff, since nothing failed.
 */
import type { Logger } from 'pino';
import WebSocket from 'ws';
import {
  AGENT_PATH,
  CLOSE,
  HEARTBEAT,
  frameJson,
  gatewayMessage,
  type AgentMessage,
  type HelloMessage,
  type JobMessage,
  type UpgradeMessage,
} from '../protocol/messages.js';

export interface ConnectionOptions {
  /** Tried in turn, starting with the first. */
  gatewayUrls: readonly string[];
  token: string;
  hello: () => HelloMessage;
  onJob: (job: JobMessage) => void;
  /** The gateway's verdict on a held job's Idempotency-Key. */
  onClaim?: (jobId: string, won: boolean) => void;
  onUpgrade?: (order: UpgradeMessage) => void;
  /** The gateway stored these events: the agent may forget them. */
  onEventsAck?: (ids: string[]) => void;
  log: Logger;
  pingIntervalMs?: number;
  deadAfterMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  stableAfterMs?: number;
}

export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  return Math.floor(random() * Math.min(maxMs, baseMs * 2 ** attempt));
}

export class GatewayConnection {
  #ws: WebSocket | undefined;
  #attempt = 0;
  #stopped = true;
  #outageSince: number | undefined;
  #connectedAt = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #pingTimer: NodeJS.Timeout | undefined;
  #lastSeen = 0;
  #urlIndex = 0;
  #moveNow = false;
  readonly #listeners = new Set<(connected: boolean) => void>();

  constructor(private readonly opts: ConnectionOptions) {}

  get connected(): boolean {
    return this.#ws?.readyState === WebSocket.OPEN;
  }

  /** The gateway this connection uses now, or tries next. */
  get gatewayUrl(): string {
    return this.opts.gatewayUrls[this.#urlIndex]!;
  }

  /** Called with `true` on every (re)connection and `false` on every loss. */
  onChange(listener: (connected: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  start(): void {
    this.#stopped = false;
    this.#connect();
  }

  send(message: AgentMessage): boolean {
    if (!this.connected) return false;
    this.#ws!.send(JSON.stringify(message));
    return true;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    clearInterval(this.#pingTimer);
    const ws = this.#ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      ws.once('close', () => resolve());
      ws.close(CLOSE.shuttingDown, 'agent stopping');
      setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2000).unref();
    });
  }

  #connect(): void {
    const url = new URL(AGENT_PATH, this.gatewayUrl.replace(/^http/, 'ws'));
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${this.opts.token}` }, handshakeTimeout: 10_000 });
    this.#ws = ws;
    let opened = false;

    ws.on('open', () => {
      opened = true;
      this.#connectedAt = Date.now();
      this.#lastSeen = Date.now();
      ws.send(JSON.stringify(this.opts.hello()));
      if (this.#outageSince !== undefined) {
        this.opts.log.info({ downForMs: Date.now() - this.#outageSince }, 'gateway connection restored');
        this.#outageSince = undefined;
      } else {
        this.opts.log.info({ url: url.origin }, 'connected to gateway');
      }
      this.#startHeartbeat(ws);
      this.#emit(true);
    });
    ws.on('message', (raw) => {
      this.#lastSeen = Date.now();
      const parsed = gatewayMessage.safeParse(frameJson(raw));
      if (!parsed.success) {
        this.opts.log.warn('ignored a malformed message from the gateway');
        return;
      }
      if (parsed.data.type === 'job') this.opts.onJob(parsed.data);
      else if (parsed.data.type === 'claim') this.opts.onClaim?.(parsed.data.jobId, parsed.data.won);
      else if (parsed.data.type === 'upgrade') this.opts.onUpgrade?.(parsed.data);
      else if (parsed.data.type === 'eventsAck') this.opts.onEventsAck?.(parsed.data.ids);
      else if (parsed.data.type === 'reconnect') {
        this.opts.log.info({ url: url.origin }, 'gateway restarting; moving to another');
        this.#moveNow = true;
        ws.close(CLOSE.movedAway, 'gateway asked to move');
      }
    });
    ws.on('ping', () => {
      this.#lastSeen = Date.now();
    });
    ws.on('pong', () => {
      this.#lastSeen = Date.now();
    });
    ws.on('unexpected-response', (_req, res) => {
      this.#noteOutage(`gateway refused the connection (HTTP ${res.statusCode})`);
      ws.terminate();
    });
    ws.on('error', (error) => {
      this.#noteOutage(error.message);
    });
    ws.on('close', (code, reason) => {
      clearInterval(this.#pingTimer);
      if (opened) this.#emit(false);
      if (this.#stopped) return;
      this.#urlIndex = (this.#urlIndex + 1) % this.opts.gatewayUrls.length;
      const moving = this.#moveNow;
      this.#moveNow = false;
      if (opened && !moving) this.#noteOutage(`connection closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`);
      if (opened && Date.now() - this.#connectedAt >= (this.opts.stableAfterMs ?? 300_000)) this.#attempt = 0;
      const delay = moving ? 0 : backoffDelay(this.#attempt++, this.opts.backoffBaseMs ?? 1000, this.opts.backoffMaxMs ?? 60_000);
      this.#retryTimer = setTimeout(() => this.#connect(), delay);
    });
  }

  #startHeartbeat(ws: WebSocket): void {
    const interval = this.opts.pingIntervalMs ?? HEARTBEAT.pingIntervalMs;
    const deadAfter = this.opts.deadAfterMs ?? HEARTBEAT.deadAfterMs;
    this.#pingTimer = setInterval(() => {
      if (Date.now() - this.#lastSeen > deadAfter) {
        this.opts.log.warn({ silentForMs: Date.now() - this.#lastSeen }, 'gateway silent, reconnecting');
        ws.terminate();
        return;
      }
      ws.ping();
    }, interval);
  }

  #noteOutage(reason: string): void {
    if (this.#outageSince !== undefined || this.#stopped) return;
    this.#outageSince = Date.now();
    this.opts.log.warn({ reason }, 'gateway connection lost; retrying with backoff');
  }

  #emit(connected: boolean): void {
    for (const listener of this.#listeners) listener(connected);
  }
}
