/**
 * The gateway's API as any client calls it: the key in X-Api-Key, answers as JSON, errors as
 * RFC 9457 problems. The key lives in this tab's sessionStorage only: never in a URL, a cookie
 * or localStorage, so it goes when the tab closes and no link or log carries it.
 */
import { t } from './i18n.js';

const KEY_ITEM = 'fleet-console-api-key';

export const savedKey = (): string | null => sessionStorage.getItem(KEY_ITEM);
export const saveKey = (key: string) => sessionStorage.setItem(KEY_ITEM, key);
export const forgetKey = () => sessionStorage.removeItem(KEY_ITEM);

/** The API's root: where the console is served from, one folder up (/consola/ → /). */
const API_ROOT = new URL('..', document.baseURI);

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

export function apiUrl(path: string, query: Query = {}): URL {
  const url = new URL(path.replace(/^\//, ''), API_ROOT);
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  return url;
}

export async function call<T>(
  key: string,
  method: 'GET' | 'POST',
  path: string,
  opts: { query?: Query; body?: unknown; signal?: AbortSignal; idempotencyKey?: string } = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(apiUrl(path, opts.query), {
      method,
      headers: {
        'x-api-key': key,
        ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(opts.idempotencyKey === undefined ? {} : { 'idempotency-key': opts.idempotencyKey }),
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
      cache: 'no-store',
    });
  } catch (error) {
    if (opts.signal?.aborted) throw error;
    throw new ApiProblem(0, 'unreachable', t.problems.unreachable);
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.ok) return body as T;
  const problem = (body ?? {}) as { code?: unknown; detail?: unknown };
  const code = typeof problem.code === 'string' ? problem.code : `http_${response.status}`;
  const detail = typeof problem.detail === 'string' ? problem.detail : response.statusText;
  if (code === 'rate_limited') throw new ApiProblem(response.status, code, t.problems.rateLimited(response.headers.get('retry-after') ?? '1'));
  throw new ApiProblem(response.status, code, detail);
}

/** 128 random bits in hex; getRandomValues works outside secure contexts too, where randomUUID does not. */
export function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** What to tell a person about a failed call: our words for the codes we expect, the API's otherwise. */
export function explain(error: unknown): string {
  if (!(error instanceof ApiProblem)) return error instanceof Error ? error.message : String(error);
  if (error.code === 'rollout_conflict') return t.problems.conflict;
  return error.message;
}
