/**
 * Cluster mode refuses to start without GATEWAY_DATABASE_URL (docs/operations.md, "Cluster
 * mode"): an embedded store would be each instance's own. The refusal is a ConfigError before
 * anything starts: no embedded PostgreSQL in `dataDir`, nothing listening on the port.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/load.js';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { runGateway } from '../../src/gateway/server.js';

const work = mkdtempSync(path.join(tmpdir(), 'branch-agent-cluster-store-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Whether something accepts connections on the port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

it('refuses to start in cluster mode without a database URL, and leaves nothing running', async () => {
  const [port, natsPort] = [await freePort(), await freePort()];
  const dataDir = path.join(work, 'gateway-data');
  // As operations.md sets it up: NATS_URL in the environment, GATEWAY_DATABASE_URL forgotten.
  const { gateway } = parseConfig({ gateway: { host: '127.0.0.1', port, dataDir } }, { NATS_URL: `nats://127.0.0.1:${natsPort}` });
  expect(gateway?.cluster).toEqual({ natsUrl: `nats://127.0.0.1:${natsPort}` });
  expect(gateway?.databaseUrl).toBeUndefined();

  const started = runGateway(gateway!, pino({ level: 'silent' }));
  await expect(started).rejects.toBeInstanceOf(ConfigError);
  await expect(started).rejects.toThrow(/Cluster mode .* needs a shared store: set gateway\.databaseUrl or GATEWAY_DATABASE_URL/);
  expect(existsSync(dataDir), 'an embedded store was started').toBe(false);
  expect(await listening(port), 'the gateway listens').toBe(false);
});
