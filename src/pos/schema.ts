import type { ColumnType, GeneratedAlways, Kysely } from 'kysely';
import type { SoftRestaurantTables } from './schema-softrestaurant.js';

export type { Num } from './schema-softrestaurant.js';

/** Exactly-once record of a write, committed in the same transaction as the write. */
export interface BaIdempotency {
  scope: string;
  idem_key: string;
  fingerprint: string;
  op: string;
  result: string;
  created_at: ColumnType<Date, Date, Date>;
  expires_at: ColumnType<Date, Date, Date>;
}

/** A print job: what it asked for (price and payment method kept for receipts) and its printers' results. */
export interface BaPrintJobs {
  id: GeneratedAlways<string | number>;
  kind: 'order' | 'test' | 'account';
  order_folio: string | null;
  is_reprint: boolean;
  price: string | null;
  payment_method: string | null;
  printed_at: ColumnType<Date, Date, Date>;
  results: string;
}

/** Change detection (agent migration 003): what the last poll saw, and events not yet acknowledged. */
export interface BaEventState {
  id: number;
  products_fingerprint: string;
  last_shift_id: string | number;
  updated_at: ColumnType<Date, Date, Date>;
}

export interface BaEventAccounts {
  folio: string | number;
  opened: string;
  status: string;
  idturno: string | number | null;
  fingerprint: string;
  version: number;
}

export interface BaEventShifts {
  idturno: string | number;
}

export interface BaEventProducts {
  idproducto: string;
  idempresa: string;
  fingerprint: string;
  version: number;
}

export interface BaEventOutbox {
  seq: GeneratedAlways<string | number>;
  event_id: string;
  event: string;
}

export interface BaEventOrigins {
  id: GeneratedAlways<string | number>;
  kind: string;
  entity: string;
  job_id: string;
  created_at: ColumnType<Date, Date, Date>;
}

export interface BaSchemaVersion {
  version: number;
  name: string;
  applied_at: Date;
}

/** Every table the agent reads or writes: Soft Restaurant's own plus the agent's `ba_` tables. */
export interface PosDatabase extends SoftRestaurantTables {
  ba_idempotency: BaIdempotency;
  ba_print_jobs: BaPrintJobs;
  ba_schema_version: BaSchemaVersion;
  ba_event_state: BaEventState;
  ba_event_accounts: BaEventAccounts;
  ba_event_shifts: BaEventShifts;
  ba_event_products: BaEventProducts;
  ba_event_outbox: BaEventOutbox;
  ba_event_origins: BaEventOrigins;
}

export type PosTable = keyof PosDatabase;

export type PosDb = Kysely<PosDatabase>;

/**
 * The POS seen with tables and columns known only at run time: column lists taken from the
 * installed schema (SR versions differ), which Kysely's types cannot know.
 */
export type LooseDb = Kysely<Record<string, Record<string, unknown>>>;
export const loosely = (db: PosDb): LooseDb => db as unknown as LooseDb;
