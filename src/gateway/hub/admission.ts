/**
 * The first stage of an agent connection: an HTTP upgrade to /agent/v1 whose bearer token is a
 * branch's. Anything else is answered over plain HTTP and the socket ends.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { AGENT_PATH } from '../../protocol/messages.js';
import { sha256 } from '../secrets.js';

export interface Admitted {
  licenseKey: string;
  tokenHash: string;
}

const refuse = (socket: Duplex, status: string) => socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);

/**
 * The branch the upgrade's token belongs to, or undefined once the refusal is sent.
 * `branchForTokenHash` may throw (the store is down): answered 503, the agent retries.
 */
export async function admit(
  req: IncomingMessage,
  socket: Duplex,
  opts: { draining: boolean; log: Logger; branchForTokenHash: (tokenHash: string) => Promise<string | null> },
): Promise<Admitted | undefined> {
  const path = new URL(req.url ?? '/', 'http://gateway').pathname;
  if (path !== AGENT_PATH) return void refuse(socket, '404 Not Found');
  if (opts.draining) return void refuse(socket, '503 Service Unavailable');
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const tokenHash = token ? sha256(token) : undefined;
  let licenseKey: string | null = null;
  try {
    licenseKey = tokenHash ? await opts.branchForTokenHash(tokenHash) : null;
  } catch (error) {
    opts.log.error({ err: error }, 'agent token check failed');
    return void refuse(socket, '503 Service Unavailable');
  }
  if (!licenseKey || !tokenHash) {
    opts.log.warn({ remote: req.socket.remoteAddress }, 'agent refused: unknown token');
    return void refuse(socket, '401 Unauthorized');
  }
  return { licenseKey, tokenHash };
}
