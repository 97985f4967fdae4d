/** How a route wraps its operation's result (RouteDef.envelope) before the answer is serialized. */
import type { DispatchOutcome } from '../hub/jobs.js';
import type { RouteDef } from './route.js';

/**
 * The job's id (and for lists its worker and dispatch time) first, then the result's fields: a
 * result field of the same name wins, as in `{ ...meta, ...data }`.
 */
export function envelope(def: Pick<RouteDef, 'envelope' | 'jobId'>, outcome: DispatchOutcome, data: Record<string, unknown>): Record<string, unknown> {
  if (def.envelope === 'result' || def.envelope === 'xml') return withFields({ jobId: outcome.jobId }, data);
  const meta = def.jobId
    ? { jobId: outcome.jobId, workerId: outcome.workerId, dispatchedAt: outcome.dispatchedAt }
    : { workerId: outcome.workerId, dispatchedAt: outcome.dispatchedAt };
  return withFields(meta, data);
}

/**
 * Adds the fields as spreading defines them (a key named __proto__ stays a key), but not as a
 * spread literal: V8 allocated every such answer where only a major collection frees it, and at
 * 1,000 requests a second those answers alone brought one every few seconds (bench/agents.ts).
 */
function withFields(meta: Record<string, unknown>, data: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(data)) Object.defineProperty(meta, key, { value: data[key], enumerable: true, writable: true, configurable: true });
  return meta;
}
