/**
 * The SQL Server form of every statement every operation runs, compared with saved
 * expectations. Each scenario runs for real on PostgreSQL through the agent's job runner while a
 * recorder compiles each statement with the SQL Server compiler. Regenerate after an intended
 * change with `npm run tsql:update` and review the diff.
 */
import { DEMO_PRINTER_RULE } from '../../src/demo/printers.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/agent/runner.js';
import { TsqlRecorder } from '../../src/pos/sql-dialect.js';
import { operations } from '../../src/agent/operations.js';
import { openPos, type PosRuntime } from '../../src/pos/runtime.js';
import { newPosDatabase } from '../support/databases.js';
import { SCENARIO_NOW } from './scenarios/clock.js';
import { SCENARIOS } from './scenarios/index.js';

const EXPECTED_DIR = new URL('./expected/', import.meta.url);
const update = process.env.UPDATE_TSQL === '1';
let pos: PosRuntime;

beforeAll(async () => {
  pos = await openPos(await newPosDatabase(), pino({ level: 'silent' }));
});
afterAll(async () => {
  await pos?.close();
});

function runnerOn(db: PosRuntime['db']): JobRunner {
  // The printing scenarios print to virtual printers on loopback, as the demo's.
  return new JobRunner({
    pos: { ...pos, db },
    operations,
    log: pino({ level: 'silent' }),
    concurrency: 1,
    idempotencyRetentionMs: 3_600_000,
    printerRule: DEMO_PRINTER_RULE,
    wallClock: () => SCENARIO_NOW.getTime(),
  });
}

let jobs = 0;
async function runJob(runner: JobRunner, op: string, params: Record<string, unknown>): Promise<unknown> {
  const n = ++jobs;
  const idempotency = operations.get(op)!.def.write ? { scope: 'tsql', key: `${op}-${n}`, fingerprint: 'f' } : undefined;
  const result = await runner.run({ type: 'job', jobId: `tsql-${n}`, op, params, budgetMs: 60_000, ...(idempotency ? { idempotency } : {}) });
  // A print's records are written after its answer: they are its statements all the same.
  await runner.drained();
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return result.ok ? result.data : undefined;
}

async function recordOperation(op: string): Promise<string> {
  const blocks: string[] = [];
  for (const [i, scenario] of SCENARIOS.filter((s) => s.op === op).entries()) {
    const extra = await scenario.setup?.(pos.db, (setupOp, input) => runJob(runnerOn(pos.db), setupOp, input));
    const recorder = new TsqlRecorder();
    try {
      await runJob(runnerOn(pos.db.withPlugin(recorder)), op, { ...scenario.input, ...extra });
    } finally {
      await scenario.teardown?.(pos.db);
    }
    blocks.push(`-- scenario ${i + 1}: ${JSON.stringify(scenario.input)}\n${recorder.statements.map((s) => `${s};`).join('\n')}\n`);
  }
  return blocks.join('\n');
}

describe('T-SQL expectations', () => {
  it('every operation has at least one scenario', () => {
    const covered = new Set(SCENARIOS.map((s) => s.op));
    expect([...operations.keys()].filter((op) => !covered.has(op))).toEqual([]);
  });

  for (const op of operations.keys()) {
    it(`${op} compiles to the saved T-SQL`, async () => {
      const actual = await recordOperation(op);
      const file = new URL(`${op}.sql`, EXPECTED_DIR);
      if (update) {
        mkdirSync(EXPECTED_DIR, { recursive: true });
        writeFileSync(file, actual);
      }
      expect(existsSync(file), `no saved expectation for ${op}: run npm run tsql:update`).toBe(true);
      expect(actual).toBe(readFileSync(file, 'utf8'));
    });
  }
});
