/**
 * The same operations on a real SQL Server: a fresh database gets the reference schema
 * (sql/mssql), the agent's migrations and the demo data; then every T-SQL scenario runs through
 * the agent's job runner, and the main account flow runs through the whole path (HTTP → WS →
 * agent → SQL Server). Needs MSSQL_URL or a Docker engine; otherwise it reports itself skipped.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/agent/runner.js';
import { seedBranch } from '../../src/demo/seed.js';
import { startStack, waitForAgents, type Stack } from '../../src/demo/stack.js';
import { readInstalledSchema } from '../../src/pos/columns.js';
import { createPosDb } from '../../src/pos/db.js';
import { operations } from '../../src/pos/operations/index.js';
import { installReferenceSchema } from '../../src/pos/reference-schema.js';
import { openPos, POS_TABLES, type PosRuntime } from '../../src/pos/runtime.js';
import { cloneDatabase, TEMPLATES } from '../support/databases.js';
import { findSqlServer, type MssqlConfig, type SqlServer } from '../support/sqlserver.js';
import { SCENARIOS } from '../tsql/scenarios/index.js';

const found = await findSqlServer();
const server = 'skip' in found ? undefined : (found as SqlServer);
if (!server) console.log(`SQL Server suite skipped: ${(found as { skip: string }).skip}.`);

describe.skipIf(!server)(`SQL Server suite${server ? ` (${server.source})` : ' (skipped: no SQL Server; see the line above)'}`, () => {
  let config: MssqlConfig;
  let pos: PosRuntime;
  let stack: Stack;
  const log = pino({ level: 'silent' });

  beforeAll(async () => {
    const name = `ba_test_${randomBytes(4).toString('hex')}`;
    const master = createPosDb(server!.config);
    await sql.raw(`CREATE DATABASE [${name}]`).execute(master.db);
    await master.close();
    config = { ...server!.config, database: name };
    const setup = createPosDb(config);
    await installReferenceSchema(setup.db, 'mssql');
    await setup.close();
    pos = await openPos(config, log);
    await seedBranch(pos.db, await readInstalledSchema(pos.db, 'mssql', POS_TABLES), { name: 'SQL Server', forceCancelReason: false, forceDiscountType: false });
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
    await pos?.close();
    await server?.stop();
  });

  it('runs every operation scenario', async () => {
    const runner = new JobRunner({ pos, operations, log, concurrency: 1, idempotencyRetentionMs: 3_600_000 });
    let n = 0;
    const run = async (op: string, params: Record<string, unknown>) => {
      const write = operations.get(op)!.def.write;
      const result = await runner.run({ type: 'job', jobId: `mssql-${++n}`, op, params, deadline: Date.now() + 60_000, ...(write ? { idempotency: { scope: 'mssql', key: `${op}-${n}`, fingerprint: 'f' } } : {}) });
      expect(result.ok, `${op}: ${JSON.stringify(result)}`).toBe(true);
      return result.ok ? result.data : undefined;
    };
    for (const scenario of SCENARIOS) {
      const extra = await scenario.setup?.(pos.db, run);
      await run(scenario.op, { ...scenario.input, ...extra });
    }
  }, 300_000);

  it('serves the account flow through the whole path', async () => {
    stack = await startStack({
      gatewayStoreUrl: await cloneDatabase(TEMPLATES.gateway),
      branches: [{ licenseKey: 'MSSQL00000000001', name: 'SQL Server', owner: 'u', posUrl: '', database: config }],
      apiKeys: [{ key: 'k', owner: 'u' }],
      log,
    });
    await waitForAgents(stack, ['MSSQL00000000001'], 60_000);
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${stack.url}${path}`, { method, headers: { 'x-api-key': 'k', 'idempotency-key': randomUUID(), ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect((await call('GET', '/productos/MSSQL00000000001?pageSize=5')).status).toBe(200);
    const created = await call('POST', '/temp_ordenes/MSSQL00000000001', { estacion: 'CAJA1', serie: 'A', idEmpresa: '0000000001', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 2 }] });
    expect(created.status).toBe(201);
    const folio = created.body.folio as number;
    const added = await call('POST', `/temp_ordenes/MSSQL00000000001/${folio}/productos`, { productos: [{ movimiento: 1, idProducto: '1005', cantidad: 1 }] });
    expect(added.body).toMatchObject({ movimientos: [2] });
    const cancelled = await call('POST', `/temp_ordenes/MSSQL00000000001/${folio}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '3001' }] });
    expect(cancelled.body).toMatchObject({ movimientos: [1], totales: { total: 29.9 } });
    const discounted = await call('POST', `/temp_ordenes/MSSQL00000000001/${folio}/descuento`, { modo: 'porcentaje', valor: 10 });
    expect(discounted.body).toMatchObject({ totales: { total: 26.91 } });
  }, 300_000);
});
