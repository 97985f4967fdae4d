/** A job runner of the tests' own on a branch's database: jobs handed to it as the agent's connection would. */
import pino from 'pino';
import { operations } from '../../src/agent/operations.js';
import { JobRunner } from '../../src/agent/runner.js';
import type { PosRuntime } from '../../src/pos/runtime.js';
import type { PrinterRule } from '../../src/protocol/printer-rule.js';

export function testRunner(pos: PosRuntime, printerRule?: PrinterRule): JobRunner {
  return new JobRunner({
    pos,
    operations,
    log: pino({ level: 'silent' }),
    concurrency: 4,
    idempotencyRetentionMs: 3_600_000,
    ...(printerRule ? { printerRule } : {}),
  });
}
