/**
 * The agent's health endpoints on loopback, for the installer, the service manager and
 * monitoring: /healthz answers while the process is up; /readyz only while the agent can do
 * its job, connected to the gateway and to the POS database.
 */
import type { Server } from 'node:http';
import { VERSION } from '../version.js';
import { http } from './node-http.js';

export interface HealthSource {
  gatewayConnected(): boolean;
  /** Resolves when the POS database answers; rejects otherwise. */
  pingDatabase(): Promise<void>;
  jobsRunning(): number;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

const DB_CHECK_TTL_MS = 5_000;

export async function startHealthServer(source: HealthSource, opts: { host: string; port: number }): Promise<HealthServer> {
  const startedAt = Date.now();
  let dbCheck: { at: number; ok: boolean; error?: string } = { at: 0, ok: false };

  async function databaseOk(): Promise<{ ok: boolean; error?: string }> {
    if (Date.now() - dbCheck.at < DB_CHECK_TTL_MS) return dbCheck;
    try {
      await Promise.race([source.pingDatabase(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 3_000).unref())]);
      dbCheck = { at: Date.now(), ok: true };
    } catch (error) {
      dbCheck = { at: Date.now(), ok: false, error: (error as Error).message };
    }
    return dbCheck;
  }

  const server: Server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const base = { version: VERSION, uptimeSec: Math.round((Date.now() - startedAt) / 1000), jobsRunning: source.jobsRunning() };
    if (req.url === '/healthz') return send(200, { status: 'ok', ...base });
    if (req.url === '/readyz') {
      void databaseOk().then((db) => {
        const gateway = source.gatewayConnected();
        const ready = gateway && db.ok;
        send(ready ? 200 : 503, {
          status: ready ? 'ready' : 'not_ready',
          gateway: gateway ? 'connected' : 'disconnected',
          database: db.ok ? 'ok' : 'unreachable',
          ...base,
        });
      });
      return;
    }
    send(404, { status: 'not_found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
