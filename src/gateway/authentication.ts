/**
 * X-Api-Key on every API request. A key that is not valid is a 401, or a 429 once its client
 * address, or all addresses together, have failed too often (FailedAuthThrottle). The key is always checked first, so a valid
 * key is never refused by the throttle, even from an address that keeps failing: keys carry 192
 * random bits, so the throttle is about the load of floods, not about guessing, and checking a
 * key costs one indexed read at most (lookups are cached).
 */
import type { FastifyRequest } from 'fastify';
import { FailedAuthThrottle, type FailedAuthLimit } from './failed-auth-throttle.js';
import { ApiError } from './problems.js';
import { requireScope } from './scopes.js';
import type { GatewayStore } from './store.js';

export function authenticate(store: GatewayStore, limit: FailedAuthLimit): (request: FastifyRequest) => Promise<void> {
  const throttle = new FailedAuthThrottle(limit);
  return async (request) => {
    const key = request.headers['x-api-key'];
    const owner = typeof key === 'string' && key !== '' ? await store.apiKeyOwner(key) : null;
    if (owner !== null) {
      request.userId = owner.userId;
      requireScope(request, owner.scopes);
      return;
    }
    const wait = throttle.fail(request.ip);
    if (wait > 0) {
      throw new ApiError('rate_limited', `Too many failed authentications; retry in ${wait} s.`, {}, { 'retry-after': String(wait) });
    }
    throw new ApiError('unauthorized', 'Send a valid API key in the X-Api-Key header.');
  };
}
