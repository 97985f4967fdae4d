/**
 * The roundtrip's floor on this machine: the same hops as the API (an HTTP request to this
 * process, a WebSocket frame to another process that runs the operation on the database, its
 * result back, the answer to the client) with none of the product's code in between: no
 * authentication, validation, job bookkeeping or envelope. What the API costs beyond this relay is
 * ours; what the relay costs beyond the direct call is the machine's.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { until } from '../test/support/until.js';

export interface BareRelay {
  url: string;
  stop(): Promise<void>;
}

/** Starts the relay's HTTP server here and its operation process, which reads from `posUrl`. */
export async function startBareRelay(posUrl: string): Promise<BareRelay> {
  const pending = new Map<number, http.ServerResponse>();
  let nextId = 0;
  let worker: WebSocket | undefined;
  const server = http.createServer((_req, res) => {
    if (!worker) return void res.writeHead(502).end();
    const id = nextId++;
    pending.set(id, res);
    worker.send(JSON.stringify({ id }));
  });
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    worker = ws;
    ws.on('message', (data) => {
      const { id, result } = JSON.parse((data as Buffer).toString()) as { id: number; result: unknown };
      const res = pending.get(id)!;
      pending.delete(id);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    });
    // A worker that died (its operation threw) fails the requests waiting on it instead of hanging the benchmark.
    ws.on('close', () => {
      worker = undefined;
      for (const res of pending.values()) res.writeHead(502).end();
      pending.clear();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-relay-worker.ts', url.replace('http', 'ws'), posUrl], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async (signal: NodeJS.Signals) => {
    child.kill(signal);
    await exited;
    wss.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  const connected = await until(() => worker !== undefined || child.exitCode !== null || child.signalCode !== null, 30_000).then(
    () => worker !== undefined,
    () => false,
  );
  if (!connected) {
    await stop('SIGKILL');
    throw new Error('the bare relay worker exited, or did not connect within 30 s');
  }
  return { url, stop: () => stop('SIGTERM') };
}
