/**
 * One or more inputs per operation that together run every statement the operation can run.
 * The T-SQL of those statements is compared with test/tsql/expected/<op>.sql. Each file of
 * this folder holds the scenarios of one group of operations.
 */
import type { PosDb } from '../../../src/pos/schema.js';
import { attendanceProductScenarios } from './attendance-products.js';
import { catalogScenarios } from './catalogs.js';
import { orderScenarios } from './orders.js';
import { shiftScenarios } from './shifts.js';
import { ordersReadScenarios } from './orders-read.js';
import { printingScenarios } from './printing.js';
import { settlementScenarios } from './settlement.js';

/** Runs an operation without recording it (to create the account a scenario works on). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- operation results are read loosely here
export type RunOp = (op: string, input: Record<string, unknown>) => Promise<any>;

export interface Scenario {
  op: string;
  input: Record<string, unknown>;
  /**
   * Puts the database in the state the scenario needs (runs before recording starts); what it
   * returns is merged into `input` (e.g. the folio of an account it created).
   */
  setup?: (db: PosDb, run: RunOp) => Promise<Record<string, unknown> | void>;
  /** Undoes what `setup` changed that would change the statements of the scenarios after it. */
  teardown?: (db: PosDb) => Promise<void>;
}

export const SCENARIOS: Scenario[] = [
  ...catalogScenarios,
  ...orderScenarios,
  ...settlementScenarios,
  ...shiftScenarios,
  ...ordersReadScenarios,
  ...printingScenarios,
  ...attendanceProductScenarios,
];
