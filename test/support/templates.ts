/**
 * The databases tests start from. On PostgreSQL the global setup builds each once as a template
 * that test files clone in milliseconds; on SQL Server each test database is built afresh from
 * the same recipe.
 */
import type { BranchSeed } from '../../src/demo/seed.js';

export const POS_TEMPLATES = {
  /** The reference schema and agent tables, no data. */
  empty: { database: 'tpl_pos_empty', seed: undefined },
  /** Demo branch 1: no forced cancel reason or discount type. */
  branch: { database: 'tpl_pos_branch', seed: { name: 'Sucursal Centro', forceCancelReason: false, forceDiscountType: false } },
  /** Demo branch 2: a cancel reason and a discount type are required. */
  strictBranch: { database: 'tpl_pos_strict', seed: { name: 'Sucursal Norte', forceCancelReason: true, forceDiscountType: true } },
} as const satisfies Record<string, { database: string; seed: BranchSeed | undefined }>;

export type PosTemplate = keyof typeof POS_TEMPLATES;

export const GATEWAY_TEMPLATE = 'tpl_gateway';

export type PosSchemaVersion = 'sr11' | 'sr10';

export const schemaFileOf = (version: PosSchemaVersion) => (version === 'sr10' ? 'softrestaurant10.sql' : 'softrestaurant11.sql');
