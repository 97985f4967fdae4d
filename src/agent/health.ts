/**
 * The agent's health endpoints on loopback, for the installer, the service manager and
 * monitoring: /healthz answers while the process is up; /readyz only while the agent can do
 * its job, connected to the gateway and to the POS database.
 */
import type { Server } from 'node:http';
import { VERSION } from '../version.js';
import { answersWithin, DATABASE_CHECK_MS } from './health-report.js';
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

/** How long a database check's answer stands before /readyz pings again. */
const DB_CHECK_TTL_MS = 5_000;

export async function startHealthServer(
  source: HealthSource,
  opts: { host: string; port: number; dbCheckTtlMs?: number; dbPingTimeoutMs?: number },
): Promise<HealthServer> {
  const startedAt = Date.now();
  const ttlMs = opts.dbCheckTtlMs ?? DB_CHECK_TTL_MS;
  let dbCheck = { at: -Infinity, ok: false };
  // One ping at a time: a monitor polling a hung database must not take a pool connection per request.
  let checking: Promise<boolean> | undefined;

  function databaseOk(): Promise<boolean> {
    if (Date.now() - dbCheck.at < ttlMs) return Promise.resolve(dbCheck.ok);
    checking ??= answersWithin(() => source.pingDatabase(), opts.dbPingTimeoutMs ?? DATABASE_CHECK_MS)
      .then(
        () => true,
        () => false,
      )
      .then((ok) => {
        dbCheck = { at: Date.now(), ok };
        checking = undefined;
        return ok;
      });
    return checking;
  }

  const server: Server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const base = { version: VERSION, uptimeSec: Math.round((Date.now() - startedAt) / 1000), jobsRunning: source.jobsRunning() };
    if (req.url === '/healthz') return send(200, { status: 'ok', ...base });
    if (req.url === '/readyz') {
      void databaseOk().then((database) => {
        const gateway = source.gatewayConnected();
        const ready = gateway && database;
        send(ready ? 200 : 503, {
          status: ready ? 'ready' : 'not_ready',
          gateway: gateway ? 'connected' : 'disconnected',
          database: database ? 'ok' : 'unreachable',
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
