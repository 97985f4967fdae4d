/**
 * Change detection at the branch and the events' way to the gateway: a detection poll every
 * `pollIntervalMs` (agent.events.pollIntervalMs), then the outbox sent oldest first, one batch of up to 200 at a time.
 * The gateway acknowledges a batch once its store holds it; a batch not acknowledged within
 * `ackTimeoutMs`, or whose connection dropped, is sent again, and the gateway keeps each event id
 * once. Events wait in the outbox (in the POS database) while the gateway is away.
 */
import type { Logger } from 'pino';
import type { AgentMessage } from '../protocol/messages.js';
import { ChangeDetector } from '../pos/events/detector.js';
import { forgetEvents, pendingEvents } from '../pos/events/outbox.js';
import type { PosRuntime } from '../pos/runtime.js';

const BATCH = 200;

export interface EventPumpOptions {
  pos: PosRuntime;
  licenseKey: string;
  log: Logger;
  /** Sends a message when connected; false otherwise. */
  send: (message: AgentMessage) => boolean;
  pollIntervalMs: number;
  ackTimeoutMs?: number;
}

export class EventPump {
  readonly #detector: ChangeDetector;
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;
  #stopped = true;
  #failing = false;
  /** Ids of the batch sent and not yet acknowledged, and when it went. */
  #inFlight: { ids: Set<string>; sentAt: number } | undefined;
  #flushing = false;

  constructor(private readonly opts: EventPumpOptions) {
    const { db, dialect, schema } = opts.pos;
    this.#detector = new ChangeDetector({ db, dialect, schema, log: opts.log }, opts.licenseKey);
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#tick;
  }

  /** On every (re)connection and loss: what was in flight on the old socket goes again. */
  connectionChanged(connected: boolean): void {
    this.#inFlight = undefined;
    if (connected) void this.flush();
  }

  acknowledged(ids: string[]): void {
    void forgetEvents(this.opts.pos.db, ids)
      .then(() => {
        if (!this.#inFlight) return;
        for (const id of ids) this.#inFlight.ids.delete(id);
        if (this.#inFlight.ids.size === 0) this.#inFlight = undefined;
        return this.flush();
      })
      .catch((error: unknown) => {
        // They stay in the outbox and go again; the gateway keeps each id once.
        this.opts.log.warn({ err: error }, 'could not forget acknowledged events');
      });
  }

  /** Sends the next batch unless one is in flight (and not overdue). */
  async flush(): Promise<void> {
    if (this.#flushing) return;
    if (this.#inFlight && Date.now() - this.#inFlight.sentAt < (this.opts.ackTimeoutMs ?? 10_000)) return;
    this.#flushing = true;
    try {
      const events = await pendingEvents(this.opts.pos.db, BATCH);
      if (events.length === 0) return;
      const sentAt = Date.now();
      if (this.opts.send({ type: 'events', events })) this.#inFlight = { ids: new Set(events.map((e) => e.id)), sentAt };
    } finally {
      this.#flushing = false;
    }
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      const started = Date.now();
      this.#tick = this.#pollAndFlush().finally(() => this.#schedule(Math.max(0, this.opts.pollIntervalMs - (Date.now() - started))));
    }, delayMs);
  }

  async #pollAndFlush(): Promise<void> {
    try {
      await this.#detector.poll();
      if (this.#failing) this.opts.log.info('change detection works again');
      this.#failing = false;
      await this.flush();
    } catch (error) {
      // One line per outage, not one per poll.
      if (!this.#failing) this.opts.log.warn({ err: error }, 'change detection failed; retrying at every poll');
      this.#failing = true;
    }
  }
}
