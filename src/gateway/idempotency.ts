/**
 * Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): the gateway's half. A key is
 * scoped to the API key's user; its fingerprint is method + path + canonical JSON of the body.
 * Finished outcomes (2xx and business 4xx) are replayed; a key still running is a 409; the same
 * key with another request is a 422. The agent's half commits the key with the write itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError, problemBody } from './problems.js';
import { sha256 } from './secrets.js';
import type { GatewayStore } from './store.js';

export const MAX_KEY_LENGTH = 255;

/** JSON with object keys sorted at every level, so equal bodies give equal fingerprints. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function fingerprint(request: FastifyRequest): string {
  const path = request.url.split('?')[0];
  return sha256(`${request.method} ${path} ${canonicalJson(request.body ?? null)}`);
}

const keyHeader = z
  .string()
  .max(MAX_KEY_LENGTH, `at most ${MAX_KEY_LENGTH} characters`)
  .refine((key) => key.trim() !== '', 'must not be blank')
  .describe('a unique value per intended change, at most 255 characters; sent again, the request is answered from its record');

/**
 * The headers a write declares: Idempotency-Key, required unless `optional` (the print
 * operations, which the seed sends without one; there a key that is sent is used, and a missing
 * one means every request prints). Other headers pass through untouched.
 */
export function idempotencyHeaders(presence: 'required' | 'optional'): z.ZodType {
  return z.looseObject({ 'idempotency-key': presence === 'required' ? keyHeader : keyHeader.optional() });
}

/** The validated request's Idempotency-Key, if it sent one. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  return request.headers['idempotency-key'] as string | undefined;
}

export type Replay = { status: number; body: unknown };

/**
 * Claims the key for this request, or answers from its record: a replay, or the 409/422 the
 * draft prescribes.
 */
export async function claimOrReplay(
  store: GatewayStore,
  request: FastifyRequest,
  key: string,
  print: string,
  retentionMs: number,
  staleAfterMs: number,
): Promise<Replay | undefined> {
  const claim = await store.claimIdempotencyKey(request.userId, key, print, retentionMs, staleAfterMs);
  if (claim.claimed) return undefined;
  const { record } = claim;
  if (record.fingerprint !== print) {
    throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used for a different request.');
  }
  if (record.state === 'running') {
    throw new ApiError('idempotency_in_progress', 'A request with this Idempotency-Key is still running; retry shortly.', {}, { 'retry-after': '1' });
  }
  return { status: record.status_code ?? 200, body: record.body === null ? null : JSON.parse(record.body) };
}

/** Outcomes the client must be able to retry with the same key are not kept. */
export function isReplayable(status: number, code?: string): boolean {
  if (status >= 200 && status < 300) return true;
  // The agent keeps a failed print as the job's outcome too: replaying it is the same answer.
  if (code === 'printer_failed') return true;
  if (status < 400 || status >= 500) return false;
  return ![
    'validation_failed',
    'idempotency_key_missing',
    'unauthorized',
    'branch_forbidden',
    'rate_limited',
    'idempotency_in_progress',
    'idempotency_key_reused',
  ].includes(code ?? '');
}

/** What a request that held a key answered: kept for replay. */
export interface Outcome {
  status: number;
  body: unknown;
  jobId?: string;
}

/**
 * Ends a claim: records `outcome` for replay, or releases the key when there is none to keep.
 * Never throws, because the job has run and the client must hear its real outcome. A record that
 * cannot be written releases the key instead: the client's retry reaches the agent again, whose
 * own record answers it without writing twice. A key that cannot even be released is taken over
 * once its claim is stale.
 */
export async function settleKey(store: GatewayStore, log: FastifyBaseLogger, userId: number, key: string, outcome: Outcome | undefined): Promise<void> {
  if (outcome) {
    try {
      await store.completeIdempotencyKey(userId, key, outcome.status, outcome.body, outcome.jobId);
      return;
    } catch (error) {
      log.error({ err: error, userId, jobId: outcome.jobId }, 'could not record the outcome of an Idempotency-Key request; releasing the key');
    }
  }
  try {
    await store.releaseIdempotencyKey(userId, key);
  } catch (error) {
    log.error({ err: error, userId, jobId: outcome?.jobId }, 'could not release an Idempotency-Key; it is taken over once its claim is stale');
  }
}

/**
 * Records still being written after their answer went out. A retry of one of those keys that
 * reaches this instance waits for its record; one that reaches another instance of a cluster in
 * that millisecond is told 409 idempotency_in_progress, as for any request still finishing.
 */
export class PendingRecords {
  readonly #writes = new Map<string, Promise<void>>();

  static #id(userId: number, key: string): string {
    return `${userId}\u0000${key}`;
  }

  add(userId: number, key: string, write: Promise<void>): void {
    const id = PendingRecords.#id(userId, key);
    this.#writes.set(id, write);
    void write.finally(() => {
      if (this.#writes.get(id) === write) this.#writes.delete(id);
    });
  }

  /** Resolves once the key's record, if one is being written, is in the store. */
  async written(userId: number, key: string): Promise<void> {
    await this.#writes.get(PendingRecords.#id(userId, key));
  }

  /** Resolves once every record being written is in the store (the gateway closing). */
  async drain(): Promise<void> {
    await Promise.all(this.#writes.values());
  }
}

/** Where keys are kept and for how long: a claim older than `staleAfterMs` is taken over. */
export interface KeyedWrites {
  store: GatewayStore;
  retentionMs: number;
  staleAfterMs: number;
  pending: PendingRecords;
}

/** How a keyed write is run besides its key (answerOnce). */
export interface KeyedWriteOptions<P> {
  /**
   * What the write needs from the store (printer records), looked up while the key is claimed
   * rather than before. Its failure is answered as if it had come first: the claim is released,
   * nothing is kept for replay, and no job is sent.
   */
  prepared?: Promise<P>;
  /**
   * The write may start before its key is claimed, because nothing it does lasts unless its
   * `claim` resolves true: a job whose agent holds its commit for the verdict (hub.ts).
   * Otherwise the write starts once the claim is won.
   */
  holdsCommit?: boolean;
}

/**
 * Runs a write that sent an Idempotency-Key once: claims the key (or answers from its record),
 * runs `write` with the request's fingerprint, keeps what it answered for replay (a business
 * problem too) and sends it. `claim` never rejects: it is false when the key was not claimed.
 */
export async function answerOnce<P>(
  keyed: KeyedWrites,
  request: FastifyRequest,
  reply: FastifyReply,
  key: string,
  write: (print: string, prepared: P, claim: Promise<boolean>) => Promise<Outcome>,
  opts: KeyedWriteOptions<P> = {},
): Promise<FastifyReply> {
  const print = fingerprint(request);
  const claiming = keyed.pending
    .written(request.userId, key)
    .then(() => claimOrReplay(keyed.store, request, key, print, keyed.retentionMs, keyed.staleAfterMs));
  const claim = claiming.then(
    (replay) => replay === undefined,
    () => false,
  );
  let ready: P;
  try {
    ready = (await opts.prepared) as P;
  } catch (error) {
    if (await claim) await settleKey(keyed.store, request.log, request.userId, key, undefined);
    throw error;
  }
  const early = opts.holdsCommit ? write(print, ready, claim) : undefined;
  // A write whose claim is lost is left to roll back, unawaited; its failure then is no one's.
  early?.catch(() => undefined);
  const replay = await claiming;
  if (replay) {
    return reply
      .code(replay.status)
      .header('idempotent-replayed', 'true')
      .type(replay.status >= 400 ? 'application/problem+json' : 'application/json')
      .send(replay.body);
  }
  let outcome: Outcome;
  try {
    outcome = await (early ?? write(print, ready, claim));
  } catch (error) {
    const problem = error instanceof ApiError && isReplayable(error.status, error.code) ? error : undefined;
    const kept = problem && {
      status: problem.status,
      body: problemBody(request, problem.status, problem.code, problem.message, problem.extra),
      jobId: problem.extra.jobId as string | undefined,
    };
    await settleKey(keyed.store, request.log, request.userId, key, kept);
    throw error;
  }
  // The answer does not wait for its record: settleKey never throws, and a retry waits for it.
  keyed.pending.add(
    request.userId,
    key,
    afterAnswer().then(() => settleKey(keyed.store, request.log, request.userId, key, outcome)),
  );
  return reply.code(outcome.status).send(outcome.body);
}

/**
 * Resolves once the event loop has written the answer and read what came in meanwhile: a timer,
 * since work queued with setImmediate runs before the loop next polls its sockets, and the
 * record's statement would go out ahead of both.
 */
function afterAnswer(): Promise<void> {
  return sleep(1);
}
