/**
 * A job's successful result is most of what agents send: it is read by hand, as its schema
 * (resultMessage) says, rather than through Zod, which would copy the message only to say the
 * same. Anything else (a failed job's error, other messages) is left to the schemas.
 */
import type { ResultMessage } from '../../protocol/messages.js';

export function successfulResult(message: unknown): Extract<ResultMessage, { ok: true }> | undefined {
  if (typeof message !== 'object' || message === null || !('data' in message)) return undefined;
  const { type, jobId, ok, data } = message as { type?: unknown; jobId?: unknown; ok?: unknown; data: unknown };
  if (type !== 'result' || ok !== true || typeof jobId !== 'string') return undefined;
  return { type, jobId, ok, data };
}
