/**
 * `branch-agent doctor` against real things: a PostgreSQL POS database cloned from the test
 * templates, a real gateway with its agents (startTestStack), a TCP listener standing in for a
 * printer; then each broken in turn, checking that the right item fails with the right advice.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyDatabaseError, formatDoctorReport, parsePrinterOption, runDoctor, type DoctorReport } from '../../src/agent/doctor/index.js';
import { migrateAgentTables } from '../../src/agent/migrate.js';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { migrationsDir } from '../../src/sql-migrations.js';
import { newPosDatabase, openPosDb, pgUrlOf } from '../support/databases.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { posDatabase } from '../../src/config/schema.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENV = {}; // no AGENT_TOKEN / POS_DB_PASSWORD / GATEWAY_URL overrides from the caller

function item(report: DoctorReport, id: string) {
  const found = report.items.find((i) => i.id === id);
  if (!found) throw new Error(`no item ${id} in ${report.items.map((i) => i.id).join(', ')}`);
  return found;
}

describe('branch-agent doctor', () => {
  let stack: TestStack;
  let dir: string;
  let printer: Server;
  let printerPort: number;
  let posUrl: string;
  let closedPort: number;
  let n = 0;

  const writeConfig = (agent: Record<string, unknown>, raw?: string): string => {
    const file = path.join(dir, `config-${++n}.json`);
    writeFileSync(file, raw ?? JSON.stringify({ agent }, null, 2));
    return file;
  };
  const goodAgent = (overrides: Record<string, unknown> = {}) => ({
    licenseKey: BRANCH,
    gatewayUrl: stack.url,
    token: stack.agentTokens.get(BRANCH),
    database: posDatabase({ dialect: 'postgres', url: posUrl }),
    ...overrides,
  });
  const withDatabase = (mutate: (url: URL) => void) => {
    const url = new URL(posUrl);
    mutate(url);
    return goodAgent({ database: posDatabase({ dialect: 'postgres', url: url.href }) });
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'branch-agent-doctor-'));
    stack = await startTestStack();
    posUrl = pgUrlOf(stack.posConfigs.get(BRANCH)!);
    printer = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => printer.listen(0, '127.0.0.1', resolve));
    printerPort = (printer.address() as { port: number }).port;
    closedPort = await freePort();
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => printer?.close(resolve));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes every item on a working configuration, without disturbing the connected agent', async () => {
    const report = await runDoctor(writeConfig(goodAgent()), { env: ENV, printers: [{ host: '127.0.0.1', port: printerPort }] });
    expect(report.items.map((i) => [i.id, i.status])).toEqual([
      ['config', 'pass'],
      ['database', 'pass'],
      ['pos-schema', 'pass'],
      ['pos-version', 'pass'],
      ['agent-tables', 'pass'],
      ['gateway', 'pass'],
      ['token', 'pass'],
      [`printer:127.0.0.1:${printerPort}`, 'pass'],
    ]);
    expect(report.ok).toBe(true);
    expect(item(report, 'pos-version').message).toContain('11.0.0.0');
    const text = formatDoctorReport(report);
    expect(text).toMatch(/Verdict: READY: the agent can work/);
    expect(text).not.toContain(stack.agentTokens.get(BRANCH)!);
    expect(text).not.toContain('embedded'); // the database password
    // The doctor's WebSocket never said hello: the real agent is still the branch's agent.
    expect(stack.gateway.hub.agentFor(BRANCH)?.workerId).toBe(`agent-${BRANCH}`);
  });

  it('without printers given, says printers are not configured here (not a failure)', async () => {
    const report = await runDoctor(writeConfig(goodAgent()), { env: ENV });
    expect(item(report, 'printers')).toMatchObject({ status: 'skip', essential: false, message: expect.stringMatching(/not configured here/) });
    expect(report.ok).toBe(true);
  });

  it('invalid JSON: the config fails with the position, everything else is skipped', async () => {
    const report = await runDoctor(writeConfig({}, '{ "agent": { "licenseKey": "X" '), { env: ENV });
    expect(item(report, 'config')).toMatchObject({ status: 'fail', cause: 'invalid-json', message: expect.stringMatching(/is not valid JSON/) });
    expect(item(report, 'config').advice).toMatch(/JSON syntax/);
    for (const id of ['database', 'pos-schema', 'gateway', 'token']) expect(item(report, id).status).toBe('skip');
    expect(report.ok).toBe(false);
  });

  it('invalid settings: one line per zod issue', async () => {
    const report = await runDoctor(writeConfig(goodAgent({ licenseKey: 'short', gatewayUrl: 'not a url', token: undefined })), { env: ENV });
    const config = item(report, 'config');
    expect(config).toMatchObject({ status: 'fail', cause: 'invalid-config' });
    expect(config.details?.join('\n')).toMatch(/agent\.licenseKey/);
    expect(config.details?.join('\n')).toMatch(/agent\.gatewayUrl/);
    expect(config.details?.join('\n')).toMatch(/agent\.token/);
    expect(report.ok).toBe(false);
  });

  it('a missing file and a file without an agent section', async () => {
    const missing = await runDoctor(path.join(dir, 'nope.json'), { env: ENV });
    expect(item(missing, 'config')).toMatchObject({ status: 'fail', cause: 'unreadable' });
    const gatewayOnly = path.join(dir, 'gateway-only.json');
    writeFileSync(gatewayOnly, JSON.stringify({ gateway: {} }));
    expect(item(await runDoctor(gatewayOnly, { env: ENV }), 'config')).toMatchObject({ status: 'fail', cause: 'no-agent-section' });
  });

  it('environment overrides apply as for the agent (AGENT_TOKEN)', async () => {
    const report = await runDoctor(writeConfig(goodAgent({ token: 'agt_wrong' })), { env: { AGENT_TOKEN: stack.agentTokens.get(BRANCH) } });
    expect(item(report, 'token').status).toBe('pass');
  });

  it('wrong database password: login failed, with what to check', async () => {
    const report = await runDoctor(writeConfig(withDatabase((u) => (u.password = 'wrong'))), { env: ENV });
    const db = item(report, 'database');
    expect(db).toMatchObject({ status: 'fail', cause: 'login-failed', message: expect.stringMatching(/^login failed/) });
    expect(db.advice).toMatch(/user or password/);
    expect(db.message).not.toContain('wrong');
    expect(item(report, 'pos-schema').status).toBe('skip');
    expect(item(report, 'gateway').status).toBe('pass'); // independent checks still run
    expect(report.ok).toBe(false);
  });

  it('unknown database: database missing', async () => {
    const report = await runDoctor(writeConfig(withDatabase((u) => (u.pathname = '/no_such_database'))), { env: ENV });
    expect(item(report, 'database')).toMatchObject({ status: 'fail', cause: 'database-missing', message: expect.stringMatching(/^database missing/) });
    expect(item(report, 'database').advice).toMatch(/no database of that name/);
  });

  it('nothing listening at the database port: server not reachable', async () => {
    const report = await runDoctor(writeConfig(withDatabase((u) => (u.port = String(closedPort)))), { env: ENV });
    expect(item(report, 'database')).toMatchObject({ status: 'fail', cause: 'host-unreachable', message: expect.stringMatching(/ECONNREFUSED/) });
    expect(item(report, 'database').advice).toMatch(/Nothing accepts connections/);
  });

  it('gateway port with nothing listening: gateway fails, token not checked', async () => {
    const report = await runDoctor(writeConfig(goodAgent({ gatewayUrl: `http://127.0.0.1:${closedPort}` })), { env: ENV });
    expect(item(report, 'gateway')).toMatchObject({ status: 'fail', cause: 'unreachable', message: expect.stringMatching(/ECONNREFUSED/) });
    expect(item(report, 'gateway').advice).toMatch(/agent\.gatewayUrl/);
    expect(item(report, 'token')).toMatchObject({ status: 'skip' });
    expect(item(report, 'database').status).toBe('pass');
    expect(report.ok).toBe(false);
  });

  it('bad token: refused with 401, and how to get the right one', async () => {
    const report = await runDoctor(writeConfig(goodAgent({ token: 'agt_not-a-real-token' })), { env: ENV });
    const token = item(report, 'token');
    expect(token).toMatchObject({ status: 'fail', cause: 'token-refused', message: expect.stringMatching(/401/) });
    expect(token.advice).toContain(`keys add-branch -k ${BRANCH}`);
    expect(item(report, 'gateway').status).toBe('pass');
    expect(report.ok).toBe(false);
    expect(formatDoctorReport(report)).toMatch(/Verdict: NOT READY: 1 essential check\(s\) failed \(Agent token\)/);
  });

  it('a printer that does not answer fails its item but is not essential', async () => {
    const report = await runDoctor(writeConfig(goodAgent()), { env: ENV, printers: [parsePrinterOption(`127.0.0.1:${closedPort}`)] });
    expect(item(report, `printer:127.0.0.1:${closedPort}`)).toMatchObject({ status: 'fail', essential: false, cause: 'refused' });
    expect(report.ok).toBe(true);
    expect(formatDoctorReport(report)).toMatch(/Verdict: READY with 1 warning/);
  });

  it('missing columns warn (not fatal); a missing table or key column fails', async () => {
    const url = pgUrlOf(await newPosDatabase());
    const pos = await openPosDb(posDatabase({ dialect: 'postgres', url }));
    try {
      await pos.db.schema.alterTable('productos').dropColumn('WorkspaceId').execute();
      await pos.db.schema.alterTable('meseros').dropColumn('nombre').execute();
      let report = await runDoctor(writeConfig(goodAgent({ database: posDatabase({ dialect: 'postgres', url }) })), { env: ENV });
      const schema = item(report, 'pos-schema');
      expect(schema).toMatchObject({ status: 'warn', cause: 'columns-missing' });
      expect(schema.details).toEqual(expect.arrayContaining(['productos: WorkspaceId', 'meseros: nombre']));
      expect(report.ok).toBe(true);

      await pos.db.schema.alterTable('grupos').dropColumn('idgrupo').execute();
      await pos.db.schema.dropTable('modificadores').execute();
      report = await runDoctor(writeConfig(goodAgent({ database: posDatabase({ dialect: 'postgres', url }) })), { env: ENV });
      expect(item(report, 'pos-schema')).toMatchObject({ status: 'fail', cause: 'tables-missing' });
      expect(item(report, 'pos-schema').details).toEqual(expect.arrayContaining(['missing tables: modificadores', 'grupos: idgrupo (required)']));
      expect(report.ok).toBe(false);
    } finally {
      await pos.close();
    }
  });

  it('reports pending agent migrations; migrate applies them, then there is nothing to apply', async () => {
    const url = pgUrlOf(await newPosDatabase());
    const pos = await openPosDb(posDatabase({ dialect: 'postgres', url }));
    try {
      // Every agent table gone, as on a branch where the agent never ran.
      const tables = await sql<{
        name: string;
      }>`select table_name as name from information_schema.tables where table_name like 'ba\_%' and table_name <> 'ba_schema_version'`.execute(pos.db);
      for (const { name } of tables.rows) await pos.db.schema.dropTable(name).execute();
      await pos.db.deleteFrom('ba_schema_version' as never).execute();
    } finally {
      await pos.close();
    }
    const config = writeConfig(goodAgent({ database: posDatabase({ dialect: 'postgres', url }) }));
    const before = await runDoctor(config, { env: ENV });
    expect(item(before, 'agent-tables')).toMatchObject({ status: 'warn', cause: 'migrations-pending', message: expect.stringMatching(/001_idempotency\.sql/) });

    const migrations = readdirSync(migrationsDir('postgres', 'agent')).filter((f) => /^\d{3}_/.test(f) && !f.startsWith('000_'));
    expect(migrations.length).toBeGreaterThanOrEqual(3);
    expect((await migrateAgentTables(config, ENV)).applied).toEqual(migrations.sort());
    expect((await migrateAgentTables(config, ENV)).applied).toEqual([]);
    expect(item(await runDoctor(config, { env: ENV }), 'agent-tables').status).toBe('pass');
  });

  it('migrate on an unreachable database fails at once with the reason', async () => {
    const config = writeConfig(withDatabase((u) => (u.password = 'wrong')));
    await expect(migrateAgentTables(config, ENV)).rejects.toThrow(/login failed/);
  });

  it('classifies SQL Server (tedious) failures', () => {
    const tedious = (message: string, code: string, cause?: unknown) => Object.assign(new Error(message, { cause }), { code });
    expect(classifyDatabaseError(tedious("Login failed for user 'sa'.", 'ELOGIN'), [18456])).toMatchObject({ cause: 'login-failed' });
    expect(classifyDatabaseError(tedious("Login failed for user 'sa'.", 'ELOGIN'), [4060, 18456])).toMatchObject({ cause: 'database-missing' });
    expect(classifyDatabaseError(tedious('Login failed.', 'ELOGIN'), [18488])).toMatchObject({ cause: 'login-failed', reason: 'password-expired' });
    expect(classifyDatabaseError(tedious('Port for NATIONALSOFT not found in 127.0.0.1', 'EINSTLOOKUP'))).toMatchObject({
      cause: 'host-unreachable',
      reason: 'instance',
    });
    expect(classifyDatabaseError(tedious('Failed to connect to 127.0.0.1:1433 in 15000ms', 'ETIMEOUT'))).toMatchObject({
      cause: 'host-unreachable',
      reason: 'timeout',
    });
    const refused = tedious(
      'Failed to connect to 127.0.0.1:1433 - Could not connect (sequence)',
      'ESOCKET',
      new AggregateError([Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1433'), { code: 'ECONNREFUSED' })], 'Could not connect (sequence)'),
    );
    expect(classifyDatabaseError(refused)).toMatchObject({ cause: 'host-unreachable', reason: 'refused', message: expect.stringMatching(/ECONNREFUSED/) });
    const unknownHost = tedious(
      'Failed to connect to pos-server:1433 - getaddrinfo ENOTFOUND pos-server',
      'ESOCKET',
      Object.assign(new Error('getaddrinfo ENOTFOUND pos-server'), { code: 'ENOTFOUND' }),
    );
    expect(classifyDatabaseError(unknownHost)).toMatchObject({ cause: 'host-unreachable', reason: 'name' });
  });

  it('runs as a command: readable report and exit code', async () => {
    const good = writeConfig(goodAgent());
    const bad = writeConfig(goodAgent({ token: 'agt_not-a-real-token' }));
    const run = (config: string) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const env = { ...process.env };
        for (const key of ['AGENT_TOKEN', 'POS_DB_PASSWORD', 'GATEWAY_URL']) delete env[key];
        const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/doctor-cli.ts', 'doctor', '-c', config, '-p', `127.0.0.1:${printerPort}`], {
          cwd: ROOT,
          env,
        });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (out += d));
        child.on('close', (code) => resolve({ code, out }));
      });
    const [ok, failed] = await Promise.all([run(good), run(bad)]);
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(/\[ OK \] POS database: connected/);
    expect(ok.out).toMatch(/Verdict: READY/);
    expect(failed.code, failed.out).toBe(1);
    expect(failed.out).toMatch(/\[FAIL\] Agent token: the gateway refused the token \(HTTP 401\)/);
    expect(failed.out).toMatch(/What to do: Put the token printed by/);
  });
});
