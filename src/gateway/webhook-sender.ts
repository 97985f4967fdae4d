/**
 * One webhook request as the Standard Webhooks specification has it: `webhook-id` (the event's
 * id, the same on every attempt, so receivers can drop repeats), `webhook-timestamp` (seconds)
 * and `webhook-signature` (`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the
 * secret). Sent with node:http so that the connection goes through the address guard's lookup;
 * redirects are not followed (a 3xx is a failed attempt).
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { VERSION } from '../version.js';
import { guardedLookup, RefusedAddressError, urlRefusal, type AddressPolicy } from './webhook-address.js';
import { secretBytes } from './webhook-secrets.js';

export interface SendResult {
  status: number | null;
  /** Why the attempt failed (absent on a 2xx): timeout, refused_address, unreachable, http_<status>. */
  error: string | null;
  durationMs: number;
}

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export async function sendWebhook(
  target: string,
  message: { id: string; body: string; secret: string },
  policy: AddressPolicy,
  timeoutMs: number,
  now = Date.now(),
): Promise<SendResult> {
  const started = performance.now();
  const done = (status: number | null, error: string | null): SendResult => ({ status, error, durationMs: Math.round(performance.now() - started) });
  const url = new URL(target);
  if (urlRefusal(url, policy)) return done(null, 'refused_address');
  const timestamp = Math.floor(now / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': `branch-agent-gateway/${VERSION}`,
    'webhook-id': message.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(message.secret, message.id, timestamp, message.body),
  };
  return new Promise((resolve) => {
    // The whole attempt, not a silence: a receiver that trickles its answer must not outlast the
    // delivery's lease, after which another gateway may send the same event.
    const deadline = setTimeout(() => {
      settle(null, 'timeout');
      request.destroy();
    }, timeoutMs);
    let settled = false;
    const settle = (status: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(done(status, error));
    };
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      { method: 'POST', headers, lookup: guardedLookup(policy), agent: false },
      (response) => {
        const status = response.statusCode ?? null;
        // The answer's body is not kept: read and dropped so the socket closes cleanly.
        response.resume();
        response.on('end', () => settle(status, status !== null && status >= 200 && status < 300 ? null : `http_${status}`));
        response.on('error', () => settle(status, 'unreachable'));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error instanceof RefusedAddressError || error.code === 'ERR_REFUSED_ADDRESS') settle(null, 'refused_address');
      else settle(null, 'unreachable');
    });
    request.end(message.body);
  });
}
