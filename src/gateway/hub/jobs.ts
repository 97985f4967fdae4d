/** What a job to an agent is, as the hub takes it and answers it, and how it fails. */
import type { JobError, JobMessage } from '../../protocol/messages.js';

export class AgentOfflineError extends Error {}
export class AgentTimeoutError extends Error {}
/** The request's Idempotency-Key was not claimed: its job was not sent, or was told to roll back. */
export class ClaimLostError extends Error {}

/** A job for a branch's agent: the operation, its parameters, and how long the caller waits. */
export interface JobRequest {
  licenseKey: string;
  op: string;
  params: unknown;
  idempotency?: JobMessage['idempotency'];
  timeoutMs: number;
  /**
   * The claim of the request's Idempotency-Key, still being taken (it never rejects: false when
   * lost or failed). An agent that holds commits gets the job at once and the verdict after it;
   * any other gets the job only once the claim is won. Lost, the job fails with ClaimLostError.
   */
  claim?: Promise<boolean>;
}

export interface DispatchOutcome {
  jobId: string;
  workerId: string;
  dispatchedAt: string;
  ok: boolean;
  data?: unknown;
  error?: JobError;
}

/**
 * The agent's share of the time the gateway waits: a little less, so that a write the agent
 * commits at the end of its budget is answered before the gateway gives up on it. The job's trip
 * to the agent and its answer's trip back come out of it too, as the connection's last ping
 * measured them: on a link slower than the margin (a satellite or a congested mobile link), a
 * write could otherwise commit after its client was told 504.
 */
export function agentBudget(timeoutMs: number, roundTripMs = 0): number {
  // One slow ping (the agent's loop busy a moment) must not leave every job no time: a quarter of
  // the timeout at most.
  const trip = Math.min(Math.max(0, Math.ceil(roundTripMs)), Math.floor(timeoutMs / 4));
  return Math.max(1, timeoutMs - Math.min(1_000, Math.floor(timeoutMs / 10)) - trip);
}
