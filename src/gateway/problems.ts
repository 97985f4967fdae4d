/** RFC 9457 problem details: the one shape every error of the API takes. */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isConnectionError } from '../pos/db.js';
import { ERROR_STATUS, ERROR_TITLES, isErrorCode, type ErrorCode } from '../protocol/errors.js';

export interface FieldError {
  path: string;
  message: string;
}

/** An error the API answers on purpose, with its code from the API's table. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.status = ERROR_STATUS[code];
  }
}

export function problemBody(request: FastifyRequest, status: number, code: ErrorCode, detail: string, extra: Record<string, unknown> = {}) {
  return {
    type: `${request.protocol}://${request.host}/problems/${code}`,
    title: ERROR_TITLES[code],
    status,
    detail,
    code,
    instance: request.url.split('?')[0],
    ...extra,
  };
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/problem+json')
    .send(problemBody(request, error.status, error.code, error.message, error.extra));
}

function fieldErrors(error: FastifyError): FieldError[] {
  if (!hasZodFastifySchemaValidationErrors(error)) return [{ path: '', message: error.message }];
  const where = error.validationContext ?? '';
  return error.validation.map((v) => ({
    path: [where, ...String(v.instancePath ?? '').split('/').filter(Boolean)].join('.'),
    message: v.message ?? 'invalid',
  }));
}

/** 400 validation_failed listing each field that is wrong. */
export function invalidRequest(errors: FieldError[]): ApiError {
  return new ApiError('validation_failed', `The request is not valid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
}

export function validationProblem(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>, where = 'body'): ApiError {
  return invalidRequest(issues.map((i) => ({ path: [where, ...i.path.map(String)].join('.'), message: i.message })));
}

/** Turns anything thrown in a route into a problem; unexpected errors become an opaque 500. */
export function toApiError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) return invalidRequest(fieldErrors(error));
  if (isConnectionError(error)) return new ApiError('store_unavailable', 'The gateway cannot reach its database right now; retry shortly.', {}, { 'retry-after': '5' });
  const status = error.statusCode ?? 500;
  if (status === 429) return new ApiError('rate_limited', 'Too many requests for this API key; retry after the time in Retry-After.');
  if (status === 413) return new ApiError('payload_too_large', 'The request body is too large.');
  if (status === 415) return new ApiError('unsupported_media_type', 'Send the body as application/json.');
  if (status === 404) return new ApiError('not_found', 'No such resource.');
  if (status >= 400 && status < 500) return new ApiError('validation_failed', error.message);
  return new ApiError('internal_error', 'An unexpected error occurred. It has been logged.');
}

/** Seconds a client should wait before retrying an agent's temporary failure (nothing was written). */
const RETRY_AFTER: Partial<Record<ErrorCode, string>> = { pos_unavailable: '5', pos_busy: '1' };

export function jobErrorToApiError(code: string, message: string, details?: Record<string, unknown>, jobId?: string): ApiError {
  const known: ErrorCode = isErrorCode(code) ? code : 'internal_error';
  const retryAfter = RETRY_AFTER[known];
  return new ApiError(known, message, { ...(details ?? {}), ...(jobId ? { jobId } : {}) }, retryAfter ? { 'retry-after': retryAfter } : undefined);
}
