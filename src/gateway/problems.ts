/** RFC 9457 problem details: the one shape every error of the API takes. */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isConnectionError } from '../database-errors.js';
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

const OWN_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'code', 'instance']);

/**
 * The problem document. `instance` is the request path when the request reached a route of the
 * API; a request that did not (unknown path, a URL or headers that could not be read) names no
 * resource, and its path is not repeated back. `extra` adds members and never replaces these: it
 * carries an agent's details, which a compromised branch server chooses (a forged `code`, a
 * `type` or `detail` leading the client elsewhere).
 */
export function problemDocument(typeBase: string, status: number, code: ErrorCode, detail: string, extra: Record<string, unknown> = {}, instance?: string) {
  const added = Object.fromEntries(Object.entries(extra).filter(([name]) => !OWN_MEMBERS.has(name)));
  return {
    type: `${typeBase}/problems/${code}`,
    title: ERROR_TITLES[code],
    status,
    detail,
    code,
    ...(instance === undefined ? {} : { instance }),
    ...added,
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The configured public address (`publicUrl`) problems' `type` is on, without a trailing slash. */
    problemTypeBase: string | undefined;
  }
}

/** `publicUrl` as the base of problem types: its origin and path, without a trailing slash. */
export function problemTypeBase(publicUrl: string | undefined): string | undefined {
  if (publicUrl === undefined) return undefined;
  const url = new URL(publicUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Without a configured public address the `type` is on the address the request named, which a
 * client chooses (its Host header): a gateway behind a proxy should set `publicUrl`.
 */
export function problemBody(request: FastifyRequest, status: number, code: ErrorCode, detail: string, extra: Record<string, unknown> = {}) {
  const base = request.server.problemTypeBase ?? `${request.protocol}://${request.host}`;
  return problemDocument(base, status, code, detail, extra, request.is404 ? undefined : request.url.split('?')[0]);
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
    path: [
      where,
      ...String(v.instancePath ?? '')
        .split('/')
        .filter(Boolean),
    ].join('.'),
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

/** Fastify's own errors by code: what each means for the client, in words that repeat nothing it sent. */
const FRAMEWORK_ERRORS: Record<string, () => ApiError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => invalidRequest([{ path: 'body', message: 'is not valid JSON' }]),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => invalidRequest([{ path: 'body', message: 'is empty: send a JSON document' }]),
  FST_ERR_BAD_URL: () => new ApiError('malformed_request', 'The request URL is not valid percent-encoded UTF-8.'),
  FST_ERR_MAX_PARAM_LENGTH: () => new ApiError('uri_too_long', 'A segment of the request path is longer than any the API accepts.'),
};

/** Turns anything thrown into a problem; unexpected errors become an opaque 500. */
export function toApiError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation) {
    // Idempotency-Key is the only header routes declare; missing or blank has its own code (docs/api.md, Idempotency-Key).
    if (error.validationContext === 'headers' && !error.validation.some((v) => v.keyword === 'too_big')) {
      return new ApiError('idempotency_key_missing', 'This operation changes data: send an Idempotency-Key header (a unique value per intended change).');
    }
    return invalidRequest(fieldErrors(error));
  }
  if (isConnectionError(error))
    return new ApiError('store_unavailable', 'The gateway cannot reach its database right now; retry shortly.', {}, { 'retry-after': '5' });
  const known = FRAMEWORK_ERRORS[error.code];
  if (known) return known();
  const status = error.statusCode ?? 500;
  if (status === 429) return new ApiError('rate_limited', 'Too many requests for this API key; retry after the time in Retry-After.');
  if (status === 413) return new ApiError('payload_too_large', 'The request body is too large.');
  if (status === 415) return new ApiError('unsupported_media_type', 'Send the body as application/json.');
  if (status === 404) return new ApiError('not_found', 'No such resource.');
  // Other framework errors may quote the request in their message: none is passed on.
  if (status >= 400 && status < 500) return new ApiError('malformed_request', 'The request could not be read.');
  return new ApiError('internal_error', 'An unexpected error occurred. It has been logged.');
}

/** Seconds a client should wait before retrying an agent's temporary failure (nothing was written). */
const RETRY_AFTER: Partial<Record<ErrorCode, string>> = { pos_unavailable: '5', pos_busy: '1' };

export function jobErrorToApiError(code: string, message: string, details?: Record<string, unknown>, jobId?: string): ApiError {
  const known: ErrorCode = isErrorCode(code) ? code : 'internal_error';
  const retryAfter = RETRY_AFTER[known];
  return new ApiError(known, message, { ...(details ?? {}), ...(jobId ? { jobId } : {}) }, retryAfter ? { 'retry-after': retryAfter } : undefined);
}
