/**
 * What an API key may do: `read` (the GET endpoints), `write` (everything that changes a
 * branch or the printer registry) and `fleet` (the fleet endpoints: every branch's agent, and
 * upgrading them). Keys made before scopes existed keep read and write.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError } from './problems.js';

export const SCOPES = ['read', 'write', 'fleet'] as const;
export type Scope = (typeof SCOPES)[number];
export const DEFAULT_SCOPES: readonly Scope[] = ['read', 'write'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a route needs; unset: `read` for GET, `write` otherwise. */
    scope?: Scope;
  }
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The scope the matched route needs; none for a request that matched no route (its 404 follows). */
export function requiredScope(request: FastifyRequest): Scope | undefined {
  if (request.routeOptions.url === undefined) return undefined;
  return request.routeOptions.config.scope ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write');
}

export function requireScope(request: FastifyRequest, scopes: readonly Scope[]): void {
  const scope = requiredScope(request);
  if (scope !== undefined && !scopes.includes(scope)) {
    throw new ApiError('scope_missing', `This API key lacks the "${scope}" scope this endpoint needs.`, { scope });
  }
}
