/**
 * A GET over node:http or node:https, for the agent's own requests outside its WebSocket: the
 * doctor's gateway check, the installer's health wait and the release download.
 *
 * Not `fetch`: under Wine (where CI runs Windows' own node.exe) every fetch fails with
 * `connect UNKNOWN`, undici setting keep-alive on a socket before it is connected, which Wine's
 * Winsock refuses; node:http sets it after. Each request gets its own connection (no keep-alive agent):
 * they are seldom, and a pooled socket would keep a short-lived `doctor` waiting.
 */
import type { IncomingMessage } from 'node:http';
import { http, https } from './node-http.js';

/** The request took longer than its `timeoutMs`, answer included. Named as fetch's is. */
export class HttpTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * Resolves the answer once its status and headers arrive; the caller reads (or discards) its
 * body. `timeoutMs` bounds the whole exchange: past it the request and the answer are destroyed.
 */
export function httpGet(url: URL | string, opts: { timeoutMs: number; headers?: Record<string, string> }): Promise<IncomingMessage> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
  if (!client) return Promise.reject(new Error(`${target.href}: only http: and https: URLs are supported`));
  return new Promise((resolve, reject) => {
    let answer: IncomingMessage | undefined;
    const req = client.get(target, { headers: opts.headers, agent: false });
    const timer = setTimeout(() => {
      const error = new HttpTimeoutError(`${target.origin} gave no complete answer within ${opts.timeoutMs / 1000} s`);
      req.destroy(error);
      answer?.destroy(error);
    }, opts.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res) => {
      answer = res;
      res.on('close', () => clearTimeout(timer));
      resolve(res);
    });
  });
}

/** The body of an answer as text (for the small JSON answers of /healthz). */
export async function readText(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
