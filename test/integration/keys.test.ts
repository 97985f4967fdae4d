/**
 * `branch-agent keys` run as a command next to a running gateway that keeps its store in an
 * embedded PostgreSQL: the commands use that same server, and what they change takes effect on
 * the running gateway at once (a revoked key stops, a replaced agent token is disconnected).
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AGENT_PATH, CLOSE } from '../../src/protocol/messages.js';
import { startAgent, type Agent } from '../../src/agent/agent.js';
import { configSchemas } from '../../src/config/schema.js';
import { clusterAt, freePort, runningClusterPort } from '../../src/embedded-postgres/cluster.js';
import { runGateway } from '../../src/gateway/server.js';
import type { PosDbConfig } from '../../src/pos/db.js';
import { newPosDatabase } from '../support/databases.js';
import { BRANCH } from '../support/stack.js';
import { until } from '../support/until.js';
import { lastLine, runCli } from '../support/cli.js';

const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

let dir: string;
let configFile: string;
let storeDir: string;
let baseUrl: string;
let stopGateway: (() => Promise<void>) | undefined;
let posDatabase: PosDbConfig;
const agents: Agent[] = [];

beforeAll(async () => {
  // World-readable: as root the embedded PostgreSQL runs as the postgres user.
  dir = mkdtempSync(path.join(tmpdir(), 'branch-agent-keys-'));
  chmodSync(dir, 0o777);
  storeDir = path.join(dir, 'gateway-data');
  const port = await freePort();
  const gateway = { host: '127.0.0.1', port, dataDir: storeDir };
  configFile = path.join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ gateway }));
  [stopGateway, posDatabase] = await Promise.all([runGateway(configSchemas().gatewayConfigSchema.parse(gateway), log), newPosDatabase('branch')]);
  baseUrl = `http://127.0.0.1:${port}`;
}, 120_000);

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop(0)));
  await stopGateway?.();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `branch-agent keys …` with this test's config. */
const keys = (...args: string[]) => runCli(['keys', ...args, '-c', configFile]);

const shifts = (key: string) => fetch(`${baseUrl}/turnos/${BRANCH}`, { headers: { 'x-api-key': key } });

async function connectAgent(token: string): Promise<Agent> {
  const agent = await startAgent(
    { licenseKey: BRANCH, gatewayUrl: baseUrl, token, database: posDatabase, connection: { backoffBaseMs: 20, backoffMaxMs: 200 } },
    log,
  );
  agents.push(agent);
  return agent;
}

describe('branch-agent keys beside a running gateway', () => {
  let apiKey: string;
  let keyId: number;
  let agentToken: string;

  it('uses the embedded store the gateway runs, which keeps PostgreSQL durable', async () => {
    const port = await runningClusterPort(storeDir);
    expect(port).toBeGreaterThan(0);
    const client = new pg.Client({ connectionString: clusterAt(port!).url('gateway') });
    await client.connect();
    try {
      const { rows } = await client.query<{ fsync: string }>('show fsync');
      expect(rows[0]!.fsync).toBe('on');
      const { rows: commit } = await client.query<{ synchronous_commit: string }>('show synchronous_commit');
      expect(commit[0]!.synchronous_commit).toBe('on');
    } finally {
      await client.end();
    }
  });

  it('a second gateway on the same data refuses to start, and the first keeps running', async () => {
    const second = configSchemas().gatewayConfigSchema.parse({ host: '127.0.0.1', port: await freePort(), dataDir: storeDir });
    await expect(runGateway(second, log)).rejects.toThrow(/already in use by another process/);
    expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
  });

  it('registers a branch and an API key that work at once', async () => {
    const branch = await keys('add-branch', '-u', 'acme', '-k', BRANCH, '-n', 'Centro');
    expect(branch.code, branch.out).toBe(0);
    agentToken = lastLine(branch.out);
    expect(agentToken).toMatch(/^agt_/);

    const added = await keys('add-api-key', '-u', 'acme', '-l', 'kiosk');
    expect(added.code, added.out).toBe(0);
    apiKey = lastLine(added.out);
    keyId = Number(/API key (\d+) for acme/.exec(added.out)?.[1]);
    expect(keyId).toBeGreaterThan(0);

    await connectAgent(agentToken);
    await until(async () => (await shifts(apiKey)).status === 200, 10_000);
  }, 30_000);

  it('lists keys and branches without ever showing a key, a token or their hashes', async () => {
    const listed = await keys('list');
    expect(listed.code, listed.out).toBe(0);
    expect(listed.out).toMatch(new RegExp(`^${keyId}\\s+acme\\s+kiosk\\s+read,write\\s+\\S+ \\S+\\s+active$`, 'm'));
    expect(listed.out).toMatch(new RegExp(`^${BRANCH}\\s+acme\\s+Centro\\s`, 'm'));
    expect(listed.out).not.toContain(apiKey);
    expect(listed.out).not.toContain(agentToken);
    expect(listed.out).not.toMatch(/[0-9a-f]{64}/);
  }, 30_000);

  it('stores the key and the agent token as their SHA-256 only', async () => {
    const client = new pg.Client({ connectionString: clusterAt((await runningClusterPort(storeDir))!).url('gateway') });
    await client.connect();
    try {
      const { rows: keysStored } = await client.query('select * from gw_api_keys where id = $1', [keyId]);
      const { rows: branches } = await client.query('select * from gw_branches where license_key = $1', [BRANCH]);
      expect(keysStored[0].key_hash).toBe(createHash('sha256').update(apiKey).digest('hex'));
      expect(branches[0].agent_token_hash).toBe(createHash('sha256').update(agentToken).digest('hex'));
      const stored = JSON.stringify([...keysStored, ...branches]);
      expect(stored).not.toContain(apiKey);
      expect(stored).not.toContain(agentToken);
    } finally {
      await client.end();
    }
  });

  it('gives a key the scopes asked for, and refuses one it does not know', async () => {
    const fleet = await keys('add-api-key', '-u', 'acme', '-l', 'ops', '--scope', 'fleet', 'read');
    expect(fleet.code, fleet.out).toBe(0);
    const fleetKey = lastLine(fleet.out);
    const answered = await shifts(fleetKey);
    expect(answered.status, await answered.text()).toBe(200);
    expect((await keys('list')).out).toMatch(/^\d+\s+acme\s+ops\s+read,fleet\s/m);
    const unknown = await keys('add-api-key', '-u', 'acme', '--scope', 'admin');
    expect(unknown.code).not.toBe(0);
    expect(unknown.out).toMatch(/unknown scope admin/);
  }, 30_000);

  it('revokes a key on the running gateway at once, though it had just been accepted', async () => {
    expect((await shifts(apiKey)).status).toBe(200);
    const revoked = await keys('revoke-api-key', '--id', String(keyId));
    expect(revoked.code, revoked.out).toBe(0);
    expect(revoked.out).toMatch(new RegExp(`API key ${keyId} revoked`));
    // The gateway's cache would have kept accepting it for 30 s.
    await until(async () => (await shifts(apiKey)).status === 401, 2_000);
    expect((await keys('list')).out).toMatch(new RegExp(`^${keyId}\\s+acme\\s+kiosk\\s+read,write\\s+\\S+ \\S+\\s+revoked `, 'm'));
  }, 30_000);

  it('refuses to revoke a key that does not exist or is already revoked, and changes nothing', async () => {
    const before = await keys('list');
    const [again, bad] = await Promise.all([keys('revoke-api-key', '--id', String(keyId)), keys('revoke-api-key', '--id', 'kiosk')]);
    expect(again.code).toBe(1);
    expect(again.out).toMatch(new RegExp(`No active API key has id ${keyId}`));
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/--id must be a key id/);
    expect((await keys('list')).out).toBe(before.out);
  }, 60_000);

  it('disconnects an agent whose branch got a new token; the old token is refused and the new one works', async () => {
    const added = await keys('add-api-key', '-u', 'acme');
    const key = lastLine(added.out);
    await until(async () => (await shifts(key)).status === 200, 5_000);

    const rekeyed = await keys('add-branch', '-u', 'acme', '-k', BRANCH, '-n', 'Centro');
    expect(rekeyed.code, rekeyed.out).toBe(0);
    const newToken = lastLine(rekeyed.out);
    expect(newToken).not.toBe(agentToken);
    await until(async () => (await shifts(key)).status === 503, 2_000);
    const offline = await shifts(key);
    expect(((await offline.json()) as { code: string }).code).toBe('agent_offline');
    // The old agent keeps retrying with its old token and stays out.
    await sleep(500);
    expect((await shifts(key)).status).toBe(503);

    await connectAgent(newToken);
    await until(async () => (await shifts(key)).status === 200, 10_000);
  }, 30_000);

  it('closes a connection made with the replaced token even before it said hello', async () => {
    const first = await keys('add-branch', '-u', 'acme', '-k', 'TEST000000000009');
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}${AGENT_PATH}`, { headers: { authorization: `Bearer ${lastLine(first.out)}` } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    const started = Date.now();
    expect((await keys('add-branch', '-u', 'acme', '-k', 'TEST000000000009')).code).toBe(0);
    // Not the hello timeout (10 s, code 4400): the replaced token.
    expect(await closed).toBe(CLOSE.unauthorized);
    expect(Date.now() - started).toBeLessThan(8_000);
  }, 30_000);
});
