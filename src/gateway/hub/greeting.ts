/** The hello stage: what an agent's first message must say, and what the hub records of it. */
import { randomUUID } from 'node:crypto';
import { CLOSE, HELD_COMMIT, helloMessage } from '../../protocol/messages.js';
import { clockOffsetMs, type StatusChange } from './agent-status.js';
import type { ConnectedAgent, Greeting } from './connected-agent.js';
import { noEventBatches } from './event-batches.js';

export type HelloOutcome =
  { accepted: true; agent: ConnectedAgent; change: StatusChange } | { accepted: false; closeCode: (typeof CLOSE)['badHello' | 'unauthorized'] };

/** A hello for the branch the token belongs to makes a connected agent; anything else closes the socket. */
export function takeHello(greeting: Greeting, message: unknown, pingIntervalMs: number): HelloOutcome {
  const hello = helloMessage.safeParse(message);
  if (!hello.success) return { accepted: false, closeCode: CLOSE.badHello };
  const h = hello.data;
  if (h.licenseKey !== greeting.licenseKey) return { accepted: false, closeCode: CLOSE.unauthorized };
  const connectedAt = new Date();
  const now = connectedAt.getTime();
  const agent: ConnectedAgent = {
    ws: greeting.ws,
    licenseKey: greeting.licenseKey,
    tokenHash: greeting.tokenHash,
    workerId: h.workerId,
    agentVersion: h.agentVersion,
    posVersion: h.posVersion,
    connectedAt,
    connectionId: randomUUID(),
    helloSentAt: h.health ? new Date(h.health.sentAt) : connectedAt,
    lastSeen: now,
    nextPingAt: now + pingIntervalMs,
    roundTripMs: 0,
    pingSentAt: 0,
    peerPingAt: 0,
    platform: h.os?.split(' ')[0] ?? null,
    holdsCommits: h.features?.includes(HELD_COMMIT) ?? false,
    eventBatches: noEventBatches(),
  };
  const change: StatusChange = {
    kind: 'connected',
    connectionId: agent.connectionId,
    agent: {
      licenseKey: greeting.licenseKey,
      workerId: h.workerId,
      agentVersion: h.agentVersion,
      posVersion: h.posVersion,
      nodeVersion: h.nodeVersion ?? null,
      os: h.os ?? null,
      agentStartedAt: h.startedAt ? new Date(h.startedAt) : null,
    },
    report: h.health ? { health: h.health, clockOffsetMs: clockOffsetMs(h.health.sentAt, now, 0) } : null,
    at: connectedAt,
  };
  return { accepted: true, agent, change };
}
