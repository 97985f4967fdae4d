/** The agent as a service: health endpoints, one instance per machine, outage logging. */
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { GatewayConnection } from '../../src/agent/connection.js';
import { runService, type RunningService } from '../../src/agent/service.js';
import { AlreadyRunningError } from '../../src/agent/single-instance.js';
import { configSchemas } from '../../src/config/schema.js';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { frameJson } from '../../src/protocol/messages.js';
import { newPosDatabase } from '../support/databases.js';

function capture(): { log: pino.Logger; lines: Array<{ msg: string; level: number }> } {
  const lines: Array<{ msg: string; level: number }> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

const running: RunningService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop(1000)));
});

async function config(overrides: Record<string, unknown> = {}) {
  const deadGateway = await freePort();
  return configSchemas().agentConfigSchema.parse({
    licenseKey: 'TEST000000000001',
    gatewayUrl: `http://127.0.0.1:${deadGateway}`,
    token: 'agt_x',
    database: await newPosDatabase(),
    health: { host: '127.0.0.1', port: 0 },
    ...overrides,
  });
}

describe('agent service', () => {
  it('serves /healthz at once and /readyz 503 while the gateway is unreachable', async () => {
    const dir = mkdtempSync(`${tmpdir()}/agent-svc-`);
    const service = await runService(await config(), `${dir}/config.json`, capture().log);
    running.push(service);
    const health = await fetch(`http://127.0.0.1:${service.healthPort}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', jobsRunning: 0 });
    const ready = await fetch(`http://127.0.0.1:${service.healthPort}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', gateway: 'disconnected', database: 'ok' });
  });

  it('refuses to run twice on one machine and frees the lock when stopped', async () => {
    const dir = mkdtempSync(`${tmpdir()}/agent-lock-`);
    const cfg = await config({ lockFile: `${dir}/agent.lock` });
    const first = await runService(cfg, `${dir}/config.json`, capture().log);
    await expect(runService(cfg, `${dir}/config.json`, capture().log)).rejects.toBeInstanceOf(AlreadyRunningError);
    await first.stop(1000);
    const again = await runService(cfg, `${dir}/config.json`, capture().log);
    running.push(again);
    expect((await fetch(`http://127.0.0.1:${again.healthPort}/healthz`)).status).toBe(200);
  });

  it('keeps retrying a database whose host does not resolve (ENOTFOUND at boot), instead of exiting', async () => {
    const dir = mkdtempSync(`${tmpdir()}/agent-dns-`);
    const { log, lines } = capture();
    const service = await runService(
      await config({ database: { dialect: 'postgres', url: 'postgres://u:p@pos-server.invalid:5432/pos' } }),
      `${dir}/config.json`,
      log,
    );
    running.push(service);
    expect(service.agent()).toBeUndefined();
    expect(lines.some((l) => l.msg === 'POS database unreachable; retrying until it answers')).toBe(true);
    expect(lines.some((l) => l.msg === 'agent cannot start')).toBe(false);
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = mkdtempSync(`${tmpdir()}/agent-stale-`);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(`${dir}/agent.lock`, '999999');
    const service = await runService(await config({ lockFile: `${dir}/agent.lock` }), `${dir}/config.json`, capture().log);
    running.push(service);
    expect(service.agent()).toBeDefined();
  });
});

describe('gateway connection', () => {
  it('logs one line when an outage starts and one when it ends, however many retries', async () => {
    const port = await freePort();
    const { log, lines } = capture();
    const connection = new GatewayConnection({
      gatewayUrls: [`http://127.0.0.1:${port}`],
      token: 't',
      log,
      hello: () => ({ type: 'hello', licenseKey: 'TEST000000000001', workerId: 'w', agentVersion: '0', posVersion: null }),
      onJob: () => undefined,
      backoffBaseMs: 5,
      backoffMaxMs: 20,
    });
    connection.start();
    try {
      await sleep(400);
      const hellos: unknown[] = [];
      const server = new WebSocketServer({ port, host: '127.0.0.1', path: '/agent/v1' });
      server.on('connection', (ws) => ws.on('message', (m) => hellos.push(frameJson(m))));
      const end = Date.now() + 5000;
      while (!connection.connected && Date.now() < end) await sleep(10);
      expect(connection.connected).toBe(true);
      await sleep(50);
      expect(hellos).toEqual([expect.objectContaining({ type: 'hello', licenseKey: 'TEST000000000001' })]);
      expect(lines.filter((l) => l.msg.startsWith('gateway connection lost'))).toHaveLength(1);
      expect(lines.filter((l) => l.msg === 'gateway connection restored')).toHaveLength(1);
      await connection.stop();
      await new Promise<void>((r) => server.close(() => r()));
    } finally {
      await connection.stop();
    }
  });
});
