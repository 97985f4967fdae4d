/**
 * `branch-agent gateway` with its embedded store, stopped with SIGTERM while a request is in
 * flight: the request is answered, the store is stopped, and the process exits 0 and promptly,
 * because the gateway's own shutdown runs to its end rather than racing the store library's exit
 * hook, and tells the clients it answers meanwhile to close their keep-alive connections.
 *
 * Where Node can replace a process (Node.js 22.15+, CI's Node 24 run), the gateway has
 * restarted itself in place with its V8 flags (heap-growth.ts): the same pid, so the SIGTERM
 * below reaches the gateway itself; elsewhere it warns that it runs without them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, expect, it } from 'vitest';
import { startAgent, type Agent } from '../../src/agent/agent.js';
import { freePort, runningClusterPort } from '../../src/embedded-postgres/cluster.js';
import { lastLine, runCli, startCli } from '../support/cli.js';
import { newPosDatabase, withTerminal } from '../support/databases.js';
import { BRANCH } from '../support/stack.js';
import { until } from '../support/until.js';
import { orderBody } from '../support/order-body.js';
import { GATEWAY_NODE_FLAGS } from '../../src/gateway/heap-growth.js';

const dir = mkdtempSync(path.join(tmpdir(), 'branch-agent-shutdown-'));
// World-readable: as root the embedded PostgreSQL runs as the postgres user.
chmodSync(dir, 0o777);
const cleanups: Array<() => Promise<unknown>> = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

it('SIGTERM answers the request in flight, stops the store and exits 0', async () => {
  const storeDir = path.join(dir, 'gateway-data');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const configFile = path.join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ gateway: { host: '127.0.0.1', port, dataDir: storeDir, log: { level: 'warn' } } }));

  const gateway = startCli(['gateway', '-c', configFile]);
  let output = '';
  gateway.stdout!.on('data', (d) => (output += d));
  gateway.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => gateway.on('exit', (code) => resolve(code)));
  cleanups.push(() => {
    if (gateway.exitCode === null) gateway.kill('SIGKILL');
    return Promise.resolve();
  });
  await until(async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200, 60_000);
  if ('execve' in process) expect(readFileSync(`/proc/${gateway.pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(GATEWAY_NODE_FLAGS));
  else expect(output).toMatch(/could not restart itself with --no-memory-reducer/);

  const token = lastLine((await runCli(['keys', 'add-branch', '-u', 'acme', '-k', BRANCH, '-c', configFile])).out);
  const apiKey = lastLine((await runCli(['keys', 'add-api-key', '-u', 'acme', '-c', configFile])).out);
  const database = { ...(await newPosDatabase('branch')), lockTimeoutMs: 30_000 };
  const log = pino({ level: 'silent' });
  const agent: Agent = await startAgent(
    { licenseKey: BRANCH, gatewayUrl: baseUrl, token, database, connection: { backoffBaseMs: 20, backoffMaxMs: 200 } },
    log,
  );
  cleanups.push(() => agent.stop(0));

  const call = (method: string, url: string, body?: unknown) =>
    fetch(`${baseUrl}${url}`, {
      method,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  await until(async () => (await call('GET', `/turnos/${BRANCH}`)).status === 200, 10_000);
  const created = await call(
    'POST',
    `/temp_ordenes/${BRANCH}`,
    orderBody({
      serie: 'A',
      mesa: '',
      idMesero: '01',
      productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }],
    }),
  );
  expect(created.status).toBe(201);
  const { folio } = (await created.json()) as { folio: number };

  // A terminal holds the account, so the next write stays in flight until the gateway stops.
  await withTerminal(database, async (trx) => {
    await trx.updateTable('tempcheques').set({ observaciones: 'en caja' }).where('folio', '=', folio).execute();
    const inFlight = call('POST', `/temp_ordenes/${BRANCH}/${folio}/productos`, { productos: [{ movimiento: 1, idProducto: '1005', cantidad: 1 }] });
    await sleep(300);

    const stopping = Date.now();
    gateway.kill('SIGTERM');
    const answer = await inFlight;
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as { code: string }).code).toBe('agent_offline');
    expect(await exited, output).toBe(0);
    // The client connections still open at SIGTERM do not hold it for their keep-alive time (72 s).
    expect(Date.now() - stopping).toBeLessThan(15_000);
  });
  expect(await runningClusterPort(storeDir)).toBeUndefined();
}, 120_000);
