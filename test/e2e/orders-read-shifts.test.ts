/**
 * Reading closed orders by shift (POST /ordenes/buscar) from a known order history, and the
 * statements that read thousands of shift numbers within each dialect's limits.
 */
import { PostgresQueryCompiler, type KyselyPlugin } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ops from '../../src/protocol/operations/orders-read.js';
import type { PosContext } from '../../src/pos/context.js';
import { dialectOf, IN_LIST_LIMIT, TsqlRecorder } from '../../src/pos/sql-dialect.js';
import { searchClosedOrdersByShifts } from '../../src/pos/operations/orders-read.js';
import { type PosFixtures, type WrittenAccount } from '../support/fixtures.js';
import { branchClock, expectValidationError, folios, of, writeOrderHistory } from '../support/order-history.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let f: PosFixtures;
let C: Record<string, WrittenAccount>;

beforeAll(async () => {
  stack = await startTestStack({ agent: { wallClock: branchClock } });
  ({ f, C } = await writeOrderHistory(stack.pos.get(BRANCH)!.db));
});

afterAll(async () => {
  await stack?.stop();
});

describe('POST /ordenes/buscar', () => {
  const search = (body: unknown) => stack.api('POST', `/ordenes/buscar/${BRANCH}`, { body });

  it('returns the closed orders of the shifts sent, by shift then folio, without jobId', async () => {
    const res = await search({ idTurnos: [10] });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('jobId');
    expect(res.body).toMatchObject({ workerId: `agent-${BRANCH}`, page: 1, pageSize: 50, totalResults: 2, totalPages: 1 });
    expect(folios(res)).toEqual(of(C, 'C1', 'C2'));
    expect(res.body.data[0].productos).toHaveLength(2);
    expect(folios(await search({ idTurnos: [9400, 10, 10, 424242] }))).toEqual(of(C, 'C1', 'C2', 'C7', 'C6'));
  });

  it('applies the same filters', async () => {
    expect(folios(await search({ idTurnos: [10, 9000], facturado: true }))).toEqual(of(C, 'C2'));
    expect(folios(await search({ idTurnos: [9000], cierreStart: '2026-01-13' }))).toEqual(of(C, 'C5'));
    expect(folios(await search({ idTurnos: [10, 1500, 9000], search: '503', fechaStart: '2026-01-12', turnoAperturaEnd: '2026-01-12T08:00:00' }))).toEqual(
      of(C, 'C4'),
    );
  });

  it('takes 10,000 shift numbers and pages across them exactly', async () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => 10_000 - i);
    const all = await search({ idTurnos: ids });
    expect(all.status).toBe(200);
    const expected = of(C, 'C1', 'C2', 'C3', 'C4', 'C5', 'C7', 'C6');
    expect(folios(all)).toEqual(expected);
    const pages: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await search({ idTurnos: ids, page, pageSize: 2 });
      expect(res.body).toMatchObject({ page, pageSize: 2, totalResults: 7, totalPages: 4, hasNextPage: page < 4 });
      pages.push(...folios(res));
    }
    expect(pages).toEqual(expected);
    const past = await search({ idTurnos: ids, page: 5, pageSize: 2 });
    expect(past.body).toMatchObject({ totalResults: 7, data: [] });
  });

  // The chunks are cut for the dialect the context names; the statements run here either way.
  it('never puts more than a chunk of shift numbers in one SQL Server statement', async () => {
    const recorder = new TsqlRecorder();
    const ctx: PosContext = { db: f.db.withPlugin(recorder), dialect: 'mssql', schema: f.schema, log: pino({ level: 'silent' }), now: new Date(branchClock()) };
    const ids = Array.from({ length: 10_000 }, (_, i) => i + 1);
    const page = await searchClosedOrdersByShifts.run(ctx, ops.searchClosedOrdersByShifts.input.parse({ idTurnos: ids, page: 2, pageSize: 3 }));
    expect(page.data.map((o) => o.folio)).toEqual(of(C, 'C4', 'C5', 'C7'));
    const parameters = recorder.statements.map((s) => Math.max(0, ...[...s.matchAll(/@(\d+)/g)].map((m) => Number(m[1]))));
    expect(recorder.statements.filter((s) => s.startsWith('select count(*)') && s.includes('"idturno" in'))).toHaveLength(10_000 / IN_LIST_LIMIT.mssql);
    expect(Math.max(...parameters)).toBeLessThanOrEqual(IN_LIST_LIMIT.mssql + 10);
    expect(Math.max(...parameters)).toBeGreaterThan(IN_LIST_LIMIT.mssql);
  });

  it('sends 10,000 shift numbers to PostgreSQL as one array, planned as one value, read once and counted only for a full page', async ({ skip }) => {
    skip(dialectOf(f.db) !== 'postgres', 'an array parameter is PostgreSQL only; the test above checks the SQL Server statements');
    const statements: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const compiler = new PostgresQueryCompiler();
    const recorder: KyselyPlugin = {
      transformQuery: (args) => {
        if (args.node.kind === 'SelectQueryNode') statements.push(compiler.compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };
    const ctx: PosContext = {
      db: f.db.withPlugin(recorder),
      dialect: 'postgres',
      schema: f.schema,
      log: pino({ level: 'silent' }),
      now: new Date(branchClock()),
    };
    const ids = Array.from({ length: 10_000 }, (_, i) => i + 1);
    const page = await searchClosedOrdersByShifts.run(ctx, ops.searchClosedOrdersByShifts.input.parse({ idTurnos: ids, page: 2, pageSize: 3 }));
    expect(page.data.map((o) => o.folio)).toEqual(of(C, 'C4', 'C5', 'C7'));
    // Read from a subquery: the planner does not estimate its 10,000 elements one by one.
    const searches = () => statements.filter((s) => s.sql.includes('"h"."idturno" = any(array(select unnest(cast($1 as numeric[]))))'));
    // A full page: read, then counted.
    expect(searches().map((s) => s.sql.startsWith('select count(*)'))).toEqual([false, true]);
    for (const s of searches()) expect((s.parameters[0] as { toPostgres(): string }).toPostgres()).toBe(`{${ids.join(',')}}`);
    expect(Math.max(...statements.map((s) => s.parameters.length))).toBeLessThanOrEqual(10);
    // The last page is not full: its rows give the total, with no count.
    statements.length = 0;
    const last = await searchClosedOrdersByShifts.run(ctx, ops.searchClosedOrdersByShifts.input.parse({ idTurnos: ids, page: 3, pageSize: 3 }));
    expect(last).toMatchObject({ totalResults: 7, totalPages: 3, hasNextPage: false });
    expect(last.data.map((o) => o.folio)).toEqual(of(C, 'C6'));
    expect(searches().map((s) => s.sql.startsWith('select count(*)'))).toEqual([false]);
    // A short list stays a value the planner reads, for its estimate of how many rows match.
    statements.length = 0;
    await searchClosedOrdersByShifts.run(ctx, ops.searchClosedOrdersByShifts.input.parse({ idTurnos: ids.slice(0, 100) }));
    expect(statements.filter((s) => s.sql.includes('"h"."idturno" = any($1)'))).toHaveLength(1);
  });

  it("stays within SQL Server's 2,100 parameters with every filter beside a chunk", async () => {
    const recorder = new TsqlRecorder();
    const ctx: PosContext = { db: f.db.withPlugin(recorder), dialect: 'mssql', schema: f.schema, log: pino({ level: 'silent' }), now: new Date(branchClock()) };
    const input = ops.searchClosedOrdersByShifts.input.parse({
      idTurnos: Array.from({ length: 10_000 }, (_, i) => i + 1),
      search: '5',
      facturado: true,
      fechaStart: '2026-01-01',
      fechaEnd: '2026-12-31',
      cierreStart: '2026-01-01',
      cierreEnd: '2026-12-31',
      turnoAperturaStart: '2026-01-01',
      turnoAperturaEnd: '2026-12-31',
      page: 1,
      pageSize: 50,
    });
    await searchClosedOrdersByShifts.run(ctx, input);
    const parameters = recorder.statements.map((s) => Math.max(0, ...[...s.matchAll(/@(\d+)/g)].map((m) => Number(m[1]))));
    expect(Math.max(...parameters)).toBeGreaterThan(IN_LIST_LIMIT.mssql);
    expect(Math.max(...parameters)).toBeLessThanOrEqual(2_100);
  });

  it('answers an empty page for an empty list (seed: up to 10,000 ids)', async () => {
    const res = await search({ idTurnos: [] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, totalResults: 0, totalPages: 0, hasNextPage: false, data: [] });
  });

  it.each([
    ['10,001 numbers', { idTurnos: Array.from({ length: 10_001 }, (_, i) => i + 1) }],
    ['text', { idTurnos: ['x'] }],
    ['fractions', { idTurnos: [1.5] }],
    ['no list', {}],
  ])('rejects %s', async (_name, body) => {
    expectValidationError(await search(body), 'body.idTurnos');
  });

  it('rejects a bad date filter in the body', async () => {
    expectValidationError(await search({ idTurnos: [10], fechaStart: '2026-01-32' }), 'body.fechaStart');
  });
});
