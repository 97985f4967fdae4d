/** The WebSocket messages between gateway and agent (docs/architecture.md, Wire protocol). */
import type { RawData } from 'ws';
import { z } from 'zod';
import { releaseManifest } from './releases.js';
import { maintenanceWindow } from './rollouts.js';
import { branchEvent } from './events.js';

export const AGENT_PATH = '/agent/v1';

/** A frame's JSON, or undefined when it is not JSON. ws hands a frame over as one Buffer unless told otherwise. */
export function frameJson(raw: RawData): unknown {
  const bytes = Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Close codes the gateway uses to tell an agent why it was disconnected. */
export const CLOSE = {
  unauthorized: 4401,
  badHello: 4400,
  replaced: 4409,
  /** The branch's agent said hello too often lately (hub/hello-budget.ts): retry after a backoff. */
  tooManyHellos: 4429,
  /** The agent was told to reconnect elsewhere (`reconnect`). */
  movedAway: 4503,
  shuttingDown: 1001,
} as const;

/**
 * What only the agent can see, sent in its hello and in every heartbeat. `sentAt` is its own
 * wall clock when it sent the message: the gateway compares it with its own to report the
 * branch server's clock offset (which a cash cut's times depend on).
 */
export const agentHealth = z.object({
  sentAt: z.iso.datetime({ offset: true }),
  posDatabase: z.enum(['ok', 'unreachable']),
  jobsRunning: z.number().int().min(0),
  /** The last job that failed on the agent's side (a 5xx), or the database found unreachable. */
  lastError: z.object({ message: z.string().max(500), at: z.iso.datetime({ offset: true }) }).nullable(),
});

export const helloMessage = z.object({
  type: z.literal('hello'),
  licenseKey: z.string(),
  workerId: z.string().min(1).max(100),
  agentVersion: z.string().max(50),
  posVersion: z.string().max(50).nullable(),
  // Agents before fleet status send none of these; they are shown as unknown.
  nodeVersion: z.string().max(50).optional(),
  /** Platform, release and architecture, e.g. `win32 10.0.19045 x64`. */
  os: z.string().max(200).optional(),
  /** When the agent process started, on its own clock. */
  startedAt: z.iso.datetime({ offset: true }).optional(),
  health: agentHealth.optional(),
  /** What this agent can do beyond the first protocol: `heldCommit` (a job with `hold`, below). */
  features: z.array(z.string().max(50)).max(20).optional(),
});

/** The hello feature of agents that keep a held job's commit for the gateway's `claim` verdict. */
export const HELD_COMMIT = 'heldCommit';

export const heartbeatMessage = agentHealth.extend({ type: z.literal('heartbeat') });

export const jobError = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const resultMessage = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('result'), jobId: z.string(), ok: z.literal(true), data: z.unknown() }),
  z.object({ type: z.literal('result'), jobId: z.string(), ok: z.literal(false), error: jobError }),
]);

/**
 * How an upgrade the gateway asked for is going, from the agent that runs it; the agent that
 * comes up after the installer's switch (or its rollback) reports the outcome.
 */
export const upgradeProgressMessage = z.object({
  type: z.literal('upgrade'),
  rolloutId: z.uuid(),
  state: z.enum(['downloading', 'installing', 'done', 'rolled_back', 'failed']),
  reason: z.string().max(500).nullable(),
});

/** Events the agent detected, oldest first; the gateway answers `eventsAck` once it has stored them. */
export const eventsMessage = z.object({ type: z.literal('events'), events: z.array(branchEvent).min(1).max(200) });

export const agentMessage = z.union([helloMessage, heartbeatMessage, resultMessage, eventsMessage, upgradeProgressMessage]);

export const jobMessage = z.object({
  type: z.literal('job'),
  jobId: z.string(),
  op: z.string(),
  params: z.unknown(),
  idempotency: z.object({ scope: z.string(), key: z.string(), fingerprint: z.string() }).optional(),
  /**
   * How long the agent may take, counted from when it receives the job on its own monotonic
   * clock: branch clocks drift by minutes from the gateway's, so no wall-clock time crosses the
   * wire. The gateway waits a little longer than this for the answer.
   */
  budgetMs: z.number().int().positive(),
  /**
   * Sent before the gateway has claimed the request's Idempotency-Key, so that the claim and the
   * write overlap: the agent runs the write but commits only once a `claim` message says the
   * gateway won it. A lost claim, the connection closing or the budget running out first rolls
   * the write back. Only to agents whose hello lists `heldCommit`.
   */
  hold: z.literal(true).optional(),
});

/** The verdict on a held job's key: `won`, the agent commits the job; otherwise it rolls it back. */
export const claimMessage = z.object({ type: z.literal('claim'), jobId: z.string(), won: z.boolean() });

/** The gateway accepted the hello. */
export const welcomeMessage = z.object({ type: z.literal('welcome') });

/** Upgrade to this release when idle and inside the window (branch time), through the installer. */
export const upgradeMessage = z.object({
  type: z.literal('upgrade'),
  rolloutId: z.uuid(),
  release: releaseManifest,
  /** Where the agent downloads the tarball, on the gateway, with its own token. */
  downloadPath: z.string(),
  window: maintenanceWindow.nullable(),
});

/** These events are in the gateway's store: the agent may forget them. */
export const eventsAckMessage = z.object({ type: z.literal('eventsAck'), ids: z.array(z.string()) });

/**
 * This gateway is stopping (a rolling restart): connect to another one now, without waiting out a
 * backoff. Sent once the jobs in flight on the connection have been answered.
 */
export const reconnectMessage = z.object({ type: z.literal('reconnect') });

export const gatewayMessage = z.union([jobMessage, claimMessage, welcomeMessage, eventsAckMessage, upgradeMessage, reconnectMessage]);

export type HelloMessage = z.infer<typeof helloMessage>;
export type AgentHealth = z.infer<typeof agentHealth>;
export type HeartbeatMessage = z.infer<typeof heartbeatMessage>;
export type UpgradeMessage = z.infer<typeof upgradeMessage>;
export type UpgradeProgressMessage = z.infer<typeof upgradeProgressMessage>;
export type ResultMessage = z.infer<typeof resultMessage>;
export type JobMessage = z.infer<typeof jobMessage>;
export type JobError = z.infer<typeof jobError>;
export type AgentMessage = z.infer<typeof agentMessage>;
export type GatewayMessage = z.infer<typeof gatewayMessage>;
export type EventsMessage = z.infer<typeof eventsMessage>;
export type EventsAckMessage = z.infer<typeof eventsAckMessage>;

/**
 * The WebSocket heartbeat both ends keep: a ping every 15 s, and a peer silent for 45 s (three
 * pings missed) is dropped. Tests shorten it through the hub's and the connection's options.
 */
export const HEARTBEAT = { pingIntervalMs: 15_000, deadAfterMs: 45_000 } as const;
