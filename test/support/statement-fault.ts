/**
 * Faults between a write's statements: a Kysely plugin that counts the statements run through
 * it and fails the k-th one after the database ran it, as a statement that errors or a
 * connection lost right after its reply would; and a snapshot of every table a write may touch,
 * to tell whether a failed write left anything behind.
 */
import { createHash } from 'node:crypto';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { sql } from 'kysely';
import { OPTIONAL_POS_TABLES, POS_TABLES, type PosRuntime } from '../../src/pos/runtime.js';
import type { PosDb } from '../../src/pos/schema.js';

/**
 * How the write fails after its k-th statement: an error raised in its place, or the database's
 * connection cut (by `cut`, the test's) once the statement's reply came, so that what the write
 * sends next, a statement or its COMMIT, meets a closed connection; or cut and kept down (by
 * `down`), so that the agent's own retry cannot connect either; or one of the errors the agent
 * answers or runs again by their SQLSTATE.
 */
export type FaultKind = 'error' | 'cut' | 'down' | keyof typeof SQLSTATES;

/** Errors the agent tells apart by their SQLSTATE (src/database-errors.ts), raised in place of the statement's reply. */
export const SQLSTATES = { deadlock: '40P01', duplicate: '23505', lockTimeout: '55P03' } as const;

export class StatementFault implements KyselyPlugin {
  readonly #nodes = new Map<unknown, RootOperationNode>();
  /** The statements run since `arm`, in order: their query trees. */
  seen: RootOperationNode[] = [];
  #failAt = 0;
  #kind: FaultKind = 'error';
  /** Whether the armed fault fired. */
  fired = false;

  constructor(
    private readonly cut: () => void = () => undefined,
    private readonly down: () => void = () => undefined,
  ) {}

  /** Counts from 0 again and fails statement `k` (1-based; 0 fails none). */
  arm(k: number, kind: FaultKind = 'error'): void {
    this.seen = [];
    this.#failAt = k;
    this.#kind = kind;
    this.fired = false;
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    // A subquery passes here too, but only what runs comes back to transformResult.
    this.#nodes.set(args.queryId, args.node);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.seen.push(this.#nodes.get(args.queryId)!);
    this.#nodes.delete(args.queryId);
    if (this.seen.length === this.#failAt) {
      this.#failAt = 0;
      this.fired = true;
      if (this.#kind === 'cut') this.cut();
      else if (this.#kind === 'down') this.down();
      else {
        const code = this.#kind === 'error' ? 'XX000' : SQLSTATES[this.#kind];
        throw Object.assign(new Error(`fault injected after statement ${this.seen.length}`), { code });
      }
    }
    return args.result;
  }
}

/** The agent's own tables a write writes in its transaction (the event detector's are its own). */
const AGENT_TABLES = ['ba_idempotency', 'ba_print_jobs', 'ba_event_origins'];

/** Per table, a digest of each of its rows, sorted. */
export type Snapshot = Map<string, string[]>;

/**
 * Every POS table installed and the agent's write bookkeeping, row by row: a digest of each row
 * rather than the row, which keeps a snapshot small while the tables grow over a sweep.
 */
export async function snapshot(db: PosDb, pos: PosRuntime): Promise<Snapshot> {
  const tables = [...POS_TABLES, ...OPTIONAL_POS_TABLES.filter((t) => pos.schema.hasTable(t)), ...AGENT_TABLES];
  const out: Snapshot = new Map(tables.map((t) => [t, []]));
  if (pos.dialect === 'postgres') {
    // One round trip for them all.
    const { rows } = await sql<{ t: string; r: string }>`${sql.join(
      tables.map((t) => sql`select ${t} as t, md5(row_to_json(x)::text) as r from ${sql.table(t)} x`),
      sql` union all `,
    )}`.execute(db);
    for (const { t, r } of rows) out.get(t)!.push(r);
  } else {
    for (const table of tables) {
      const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
      out.set(
        table,
        rows.map((r) => createHash('md5').update(JSON.stringify(r)).digest('hex')),
      );
    }
  }
  for (const rows of out.values()) rows.sort();
  return out;
}

/** Per table, the rows `after` lacks and the rows it adds (their digests). */
export function difference(before: Snapshot, after: Snapshot): Record<string, { removed: string[]; added: string[] }> {
  const diff: Record<string, { removed: string[]; added: string[] }> = {};
  for (const [table, rows] of after) {
    const left = new Map<string, number>();
    for (const r of before.get(table) ?? []) left.set(r, (left.get(r) ?? 0) + 1);
    const added: string[] = [];
    for (const r of rows) {
      const n = left.get(r) ?? 0;
      if (n > 0) left.set(r, n - 1);
      else added.push(r);
    }
    const removed = [...left].flatMap(([r, n]) => Array<string>(n).fill(r));
    if (added.length || removed.length) diff[table] = { removed, added };
  }
  return diff;
}

/** The shape of a difference: how many rows each table lost and gained. */
export function shapeOf(diff: ReturnType<typeof difference>): string[] {
  return Object.entries(diff)
    .map(([t, d]) => `${t} -${d.removed.length} +${d.added.length}`)
    .sort();
}
