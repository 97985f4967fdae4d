/**
 * What the hub tells the fleet view about its agents: who connected (with what its hello said),
 * how each beats, who left. The hub records these; the fleet's status store (../fleet/) writes
 * them, so the dependency points from the fleet to the hub and not back.
 */
import type { AgentHealth } from '../../protocol/messages.js';

export interface AgentIdentity {
  licenseKey: string;
  workerId: string;
  agentVersion: string;
  nodeVersion: string | null;
  os: string | null;
  posVersion: string | null;
  agentStartedAt: Date | null;
}

export interface HealthReport {
  health: AgentHealth;
  clockOffsetMs: number | null;
}

/**
 * `connectionId` names one connection from its hello to its end: one agent's connections share its
 * worker id, and the one that left may be older than the one the branch's row describes.
 */
export type StatusChange =
  | { kind: 'connected'; agent: AgentIdentity; connectionId: string; report: HealthReport | null; at: Date }
  | { kind: 'heartbeat'; licenseKey: string; workerId: string; report: HealthReport; at: Date }
  | { kind: 'disconnected'; licenseKey: string; workerId: string; connectionId: string; at: Date };

/** Writes changes of one kind, each of a different branch, in one go. */
export interface StatusWriter {
  write(changes: ReadonlyArray<StatusChange>): Promise<void>;
}

/**
 * The branch server's clock minus the gateway's: the agent stamped `sentAt` about half a round
 * trip before the gateway received the message.
 */
export function clockOffsetMs(sentAt: string, receivedAt: number, roundTripMs: number): number {
  return Math.round(Date.parse(sentAt) - (receivedAt - roundTripMs / 2));
}
