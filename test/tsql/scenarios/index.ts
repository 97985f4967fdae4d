/**
 * One or more inputs per operation that together run every statement the operation can run.
 * The T-SQL of those statements is compared with test/tsql/expected/<op>.sql. Each file of
 * this folder holds the scenarios of one group of operations.
 */
import type { PosDb } from '../../../src/pos/db.js';
import { catalogScenarios } from './catalogs.js';

export interface Scenario {
  op: string;
  input: Record<string, unknown>;
  /** Puts the database in the state the scenario needs (runs before recording starts). */
  setup?: (db: PosDb) => Promise<void>;
}

export const SCENARIOS: Scenario[] = [...catalogScenarios];
