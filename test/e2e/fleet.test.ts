/**
 * The fleet endpoints through the whole stack (issue 16): what the agents say in their hello
 * and heartbeats, what the gateway sees of their connections, and the `fleet` scope.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecret } from '../../src/gateway/secrets.js';
import { VERSION } from '../../src/version.js';
import { waitForAgents } from '../../src/demo/stack.js';
import { API_KEY, BRANCH, OTHER_API_KEY, OTHER_USERS_BRANCH, startTestStack, STRICT_BRANCH, type TestStack } from '../support/stack.js';

/** The branch servers' clocks run five minutes ahead of the gateway's. */
const SKEW_MS = 5 * 60_000;
const HEARTBEAT_MS = 200;

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({
    agent: { connection: { backoffBaseMs: 20, backoffMaxMs: 200, heartbeatIntervalMs: HEARTBEAT_MS }, wallClock: () => Date.now() + SKEW_MS },
  });
});

afterAll(async () => {
  await stack?.stop();
});

interface Branch {
  licenseKey: string;
  online: boolean;
  lastSeen: string | null;
  connectedSince: string | null;
  [field: string]: unknown;
}

async function fleet(query = ''): Promise<{ totalResults: number; data: Branch[] }> {
  const res = await stack.api('GET', `/sucursales${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body as { totalResults: number; data: Branch[] };
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await sleep(25);
  }
}

describe('GET /sucursales', () => {
  it("lists the key's own branches with what their agents reported", async () => {
    // The first heartbeat brings the clock offset measured with a round trip.
    const page = await until(fleet, (p) => p.data.every((b) => b.online && typeof b.clockOffsetMs === 'number'));
    expect(page.totalResults).toBe(2);
    expect(page.data.map((b) => b.licenseKey)).toEqual([BRANCH, STRICT_BRANCH]);
    for (const branch of page.data) {
      expect(branch).toMatchObject({
        online: true,
        workerId: `agent-${branch.licenseKey}`,
        agentVersion: VERSION,
        nodeVersion: process.version,
        posDatabase: 'ok',
        jobsRunning: 0,
        lastError: null,
      });
      expect(branch.os).toMatch(new RegExp(`^${process.platform} \\S+ ${process.arch}$`));
      expect(branch.posVersion).toEqual(expect.any(String));
      expect(Date.parse(branch.connectedSince!)).toBeLessThanOrEqual(Date.parse(branch.lastSeen!));
      expect(Math.abs((branch.clockOffsetMs as number) - SKEW_MS)).toBeLessThan(2_000);
      // Uptime is measured on the agent's clock and brought back to the gateway's.
      expect(branch.uptimeSec).toBeGreaterThanOrEqual(0);
      expect(branch.uptimeSec).toBeLessThan(600);
    }
    expect(page.data.map((b) => b.name)).toEqual(['Centro', 'Norte']);
  });

  it('filters by online, version and search, and pages', async () => {
    expect((await fleet('?online=true')).totalResults).toBe(2);
    expect((await fleet('?online=false')).totalResults).toBe(0);
    expect((await fleet(`?version=${encodeURIComponent(VERSION)}`)).totalResults).toBe(2);
    expect((await fleet('?version=0.0.0-none')).totalResults).toBe(0);
    expect((await fleet('?search=norte')).data.map((b) => b.licenseKey)).toEqual([STRICT_BRANCH]);
    expect((await fleet('?search=%25')).totalResults).toBe(0);
    const second = await fleet('?pageSize=1&page=2');
    expect(second).toMatchObject({ totalResults: 2, data: [{ licenseKey: STRICT_BRANCH }] });
  });

  it('refuses a bad filter with a problem', async () => {
    const res = await stack.api('GET', '/sucursales?online=yes');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});

describe('the fleet scope', () => {
  it('is needed for the fleet endpoints: a read and write key gets 403 scope_missing', async () => {
    for (const path of ['/sucursales', `/sucursales/${OTHER_USERS_BRANCH}`]) {
      const res = await stack.api('GET', path, { key: OTHER_API_KEY });
      expect(res.status, path).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'scope_missing', scope: 'fleet' });
    }
  });

  it('limits a key to what it was given: fleet only reads no orders, read only writes nothing', async () => {
    const owner = (await stack.store.apiKeyOwner(API_KEY))!.userId;
    await stack.store.addApiKey(owner, 'fleet-only-key', 'test', ['fleet']);
    await stack.store.addApiKey(owner, 'read-only-key', 'test', ['read']);
    expect((await stack.api('GET', '/sucursales', { key: 'fleet-only-key' })).status).toBe(200);
    const read = await stack.api('GET', `/grupos/${BRANCH}`, { key: 'fleet-only-key' });
    expect(read.status).toBe(403);
    expect(read.body).toMatchObject({ code: 'scope_missing', scope: 'read' });
    expect((await stack.api('GET', `/grupos/${BRANCH}`, { key: 'read-only-key' })).status).toBe(200);

    const before = await stack.pos
      .get(BRANCH)!
      .db.selectFrom('tempcheques')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const write = await stack.api('POST', `/temp_ordenes/${BRANCH}`, {
      key: 'read-only-key',
      headers: { 'idempotency-key': 'scope-test-1' },
      body: { mesa: '5', personas: 2 },
    });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ code: 'scope_missing', scope: 'write' });
    const after = await stack.pos
      .get(BRANCH)!
      .db.selectFrom('tempcheques')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});

describe('GET /sucursales/{licenseKey}', () => {
  it("adds the last 24 hours' jobs by operation", async () => {
    for (let i = 0; i < 3; i++) expect((await stack.api('GET', `/grupos/${BRANCH}`)).status).toBe(200);
    const detail = await until(
      async () => (await stack.api('GET', `/sucursales/${BRANCH}`)).body as { last24h: { operations: Array<Record<string, unknown>> } },
      (d) => d.last24h.operations.some((o) => o.op === 'groups.list' && (o.jobs as number) >= 3),
    );
    const groups = detail.last24h.operations.find((o) => o.op === 'groups.list');
    expect(groups).toMatchObject({ failures: 0 });
    expect(groups!.jobs).toBeGreaterThanOrEqual(3);
    expect(groups!.p50Ms).toBeLessThanOrEqual(groups!.p99Ms as number);
    expect(detail).toMatchObject({ licenseKey: BRANCH, online: true, last24h: { disconnections: 0 } });
  });

  it("answers another user's branch, or one that does not exist, as forbidden", async () => {
    for (const key of [OTHER_USERS_BRANCH, 'NOPE000000000000']) {
      const res = await stack.api('GET', `/sucursales/${key}`);
      expect(res.status, key).toBe(403);
      expect(res.body).toMatchObject({ code: 'branch_forbidden' });
    }
  });

  it('shows the last error an agent reported, and keeps it after healthy heartbeats', async () => {
    const agent = stack.agents.get(BRANCH)!;
    const at = new Date(Date.now() + SKEW_MS).toISOString();
    agent.connection.send({
      type: 'heartbeat',
      sentAt: at,
      posDatabase: 'unreachable',
      jobsRunning: 0,
      lastError: { message: 'POS database unreachable: timeout', at },
    });
    const seen = await until(
      async () => (await stack.api('GET', `/sucursales/${BRANCH}`)).body as Branch,
      (b) => b.lastError !== null,
    );
    expect(seen.lastError).toEqual({ message: 'POS database unreachable: timeout', at });
    // The agent's own next heartbeat finds the database again; the error stays as history.
    const healed = await until(
      async () => (await stack.api('GET', `/sucursales/${BRANCH}`)).body as Branch,
      (b) => b.posDatabase === 'ok',
    );
    expect(healed.lastError).toEqual({ message: 'POS database unreachable: timeout', at });
  });
});

describe('an agent that stops', () => {
  it('shows offline with its last contact within one heartbeat, and online again when it returns', async () => {
    await stack.agents.get(STRICT_BRANCH)!.stop(500);
    const stoppedAt = Date.now();
    const gone = await until(
      async () => (await stack.api('GET', `/sucursales/${STRICT_BRANCH}`)).body as Branch & { last24h: { disconnections: number } },
      (b) => !b.online,
    );
    expect(gone).toMatchObject({ online: false, connectedSince: null, jobsRunning: null, uptimeSec: null, agentVersion: VERSION });
    expect(Math.abs(Date.parse(gone.lastSeen!) - stoppedAt)).toBeLessThan(HEARTBEAT_MS + 1_000);
    expect(gone.last24h.disconnections).toBe(1);
    expect((await fleet('?online=false')).data.map((b) => b.licenseKey)).toEqual([STRICT_BRANCH]);
    // The list shows the branches in trouble first, whatever their license keys say.
    expect((await fleet()).data.map((b) => b.licenseKey)).toEqual([STRICT_BRANCH, BRANCH]);
    const [ended] = (gone.last24h as unknown as { connections: Array<Record<string, unknown>> }).connections;
    expect(ended).toEqual({ workerId: `agent-${STRICT_BRANCH}`, connectedAt: expect.any(String), disconnectedAt: gone.lastSeen });

    await stack.startAgent(STRICT_BRANCH);
    await waitForAgents(stack, [STRICT_BRANCH]);
    const back = await until(
      async () => (await stack.api('GET', `/sucursales/${STRICT_BRANCH}`)).body as Branch,
      (b) => b.online,
    );
    expect(Date.parse(back.connectedSince!)).toBeGreaterThanOrEqual(stoppedAt - 1_000);
    const { connections } = (await stack.api('GET', `/sucursales/${STRICT_BRANCH}`)).body.last24h;
    expect(connections).toHaveLength(2);
    expect(connections[0]).toMatchObject({ connectedAt: back.connectedSince, disconnectedAt: null });
    expect((await fleet()).data.map((b) => b.licenseKey)).toEqual([BRANCH, STRICT_BRANCH]);
  });

  it('a gateway that restarts records its agents leaving and coming back', async () => {
    await stack.restartGateway();
    await waitForAgents(stack, [BRANCH, STRICT_BRANCH]);
    const page = await until(fleet, (p) => p.data.every((b) => b.online));
    expect(page.data.every((b) => b.online)).toBe(true);
    const detail = (await stack.api('GET', `/sucursales/${BRANCH}`)).body as { last24h: { disconnections: number } };
    expect(detail.last24h.disconnections).toBe(1);
  });
});

describe('the last 24 hours of jobs', () => {
  it('are counted whole and hour by hour, with exact percentiles, in the list and the detail alike', async () => {
    const quiet = 'TEST0000000000B1';
    const owner = (await stack.store.branchOwner(BRANCH))!;
    await stack.store.upsertBranch(owner, quiet, newSecret('agt'), 'Sin agente');
    const HOUR = 3_600_000;
    const hourStart = (hoursAgo: number) => Math.floor((Date.now() - hoursAgo * HOUR) / HOUR) * HOUR;
    const job = (hoursAgo: number, durationMs: number, outcome = 'ok') => ({
      job_id: randomUUID(),
      license_key: quiet,
      op: hoursAgo === 3 ? 'groups.list' : 'orders.create',
      worker_id: null,
      outcome,
      error_code: outcome === 'ok' ? null : 'pos_busy',
      started_at: new Date(hourStart(hoursAgo) + 10 * 60_000),
      duration_ms: durationMs,
    });
    await stack.store.insertJobLog([job(3, 30), job(3, 10), job(3, 20), job(1, 100), job(1, 200, 'error'), job(25, 5_000)]);
    try {
      const expected = {
        jobs: 5,
        failures: 1,
        // percentile_disc: the first duration at or past the share, never an interpolation.
        p50Ms: 30,
        p99Ms: 200,
        hourly: [
          { hour: new Date(hourStart(3)).toISOString(), jobs: 3, failures: 0, p50Ms: 20, p99Ms: 30 },
          { hour: new Date(hourStart(1)).toISOString(), jobs: 2, failures: 1, p50Ms: 100, p99Ms: 200 },
        ],
      };
      const page = await fleet();
      // Never connected counts as offline: listed first.
      expect(page.data.map((b) => b.licenseKey)).toEqual([quiet, BRANCH, STRICT_BRANCH]);
      expect(page.data[0]).toMatchObject({ online: false, agentVersion: null, last24h: expected });
      expect(page.data[2]!.last24h).toEqual({ jobs: 0, failures: 0, p50Ms: null, p99Ms: null, hourly: [] });
      const detail = (await stack.api('GET', `/sucursales/${quiet}`)).body;
      expect(detail.last24h).toEqual({
        ...expected,
        disconnections: 0,
        connections: [],
        operations: [
          { op: 'groups.list', jobs: 3, failures: 0, p50Ms: 20, p99Ms: 30 },
          { op: 'orders.create', jobs: 2, failures: 1, p50Ms: 100, p99Ms: 200 },
        ],
      });
    } finally {
      await stack.store.db.deleteFrom('gw_job_log').where('license_key', '=', quiet).execute();
      await stack.store.db.deleteFrom('gw_branches').where('license_key', '=', quiet).execute();
    }
  });
});
