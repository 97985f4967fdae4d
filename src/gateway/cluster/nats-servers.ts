/**
 * NATS_URL as operators write it for the NATS tools: comma-separated servers, credentials in the
 * URL (`nats://TOKEN@host:4222` or `nats://USER:PASSWORD@host:4222`). nats.js takes credentials
 * only as options and would send none, so they are lifted out of the URLs here, which also
 * keeps them out of the server names the gateway logs.
 */
import type { ConnectionOptions } from 'nats';

export function natsConnectOptions(natsUrl: string): Pick<ConnectionOptions, 'servers' | 'token' | 'user' | 'pass'> {
  // By their JSON: the same credentials written in several URLs count once.
  const credentials = new Map<string, { user: string; pass: string }>();
  const servers = natsUrl
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((server) => {
      const url = new URL(server.includes('://') ? server : `nats://${server}`);
      if (url.username) {
        const named = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
        credentials.set(JSON.stringify(named), named);
      }
      return `${url.protocol}//${url.host}`;
    });
  if (credentials.size > 1) throw new Error('NATS_URL names different credentials for its servers: a cluster has one');
  const [only] = credentials.values();
  if (only === undefined) return { servers };
  return only.pass ? { servers, user: only.user, pass: only.pass } : { servers, token: only.user };
}
