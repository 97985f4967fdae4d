/** An agent connection as the hub holds it, and what the gateway sends on it. */
import type { WebSocket } from 'ws';
import type { GatewayMessage } from '../../protocol/messages.js';
import type { EventBatches } from './event-batches.js';

/** A socket past the token check: it may say hello until `helloDeadline`. */
export interface Greeting {
  ws: WebSocket;
  licenseKey: string;
  /** Hash of the token it connected with, checked again when its branch changes. */
  tokenHash: string;
  helloDeadline: number;
}

export interface ConnectedAgent {
  ws: WebSocket;
  licenseKey: string;
  tokenHash: string;
  workerId: string;
  agentVersion: string;
  posVersion: string | null;
  connectedAt: Date;
  /** Names this connection in the fleet's records (hub/agent-status.ts). */
  connectionId: string;
  /**
   * When the agent said hello, on its own clock (its hello's health.sentAt; the gateway's time
   * for agents that do not report it): instances whose clocks disagree still agree on which of
   * one agent's connections is the newer.
   */
  helloSentAt: Date;
  lastSeen: number;
  /** When the next ping is due: spread as the agents connected, not all on one tick. */
  nextPingAt: number;
  /** The last ping's round trip, for the clock offset (0 until the first pong). */
  roundTripMs: number;
  pingSentAt: number;
  /** When the agent last pinged the gateway (0: never): an agent that pings needs fewer pings. */
  peerPingAt: number;
  /** `process.platform` of the agent, from its hello's `os`; null for agents that do not say. */
  platform: string | null;
  /** Its hello lists `heldCommit`: a write may reach it before its key is claimed (`hold`). */
  holdsCommits: boolean;
  /** Its `events` batches being stored or waiting to be (hub.ts): stored one at a time. */
  eventBatches: EventBatches;
}

/** Every message to an agent goes through here: its type is the protocol's. */
export function sendToAgent(ws: WebSocket, message: GatewayMessage, sent?: (error?: Error) => void): void {
  ws.send(JSON.stringify(message), sent);
}
