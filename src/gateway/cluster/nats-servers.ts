/**
 * NATS_URL as operators write it for the NATS tools: comma-separated servers, credentials in the
 * URL (`nats://TOKEN@host:4222` or `nats://USER:PASSWORD@host:4222`). nats.js takes credentials
 * only as options and would send none, so they are lifted out of the URLs here, which also
 * keeps them out of the server names the gateway logs.
 */
import type { ConnectionOptions } from 'nats';

export function natsConnectOptions(natsUrl: string): Pick<ConnectionOptions, 'servers' | 'token' | 'user' | 'pass'> {
  const credentials = new Set<string>();
  const servers = natsUrl
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((server) => {
      const url = new URL(server.includes('://') ? server : `nats://${server}`);
      if (url.username) credentials.add(`${decodeURIComponent(url.username)}\n${url.password ? decodeURIComponent(url.password) : ''}`);
      return `${url.protocol}//${url.host}`;
    });
  if (credentials.size > 1) throw new Error('NATS_URL names different credentials for its servers: a cluster has one');
  const [only] = credentials;
  if (only === undefined) return { servers };
  const [user, pass] = only.split('\n') as [string, string];
  return pass ? { servers, user, pass } : { servers, token: user };
}
