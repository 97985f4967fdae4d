/**
 * A Kysely plugin that holds the result of the first statement matching a test until the test
 * releases it: a write or read stopped between two of its statements on a real database, while
 * something else (a terminal, a payment) commits in between.
 */
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

export class StatementPause implements KyselyPlugin {
  readonly #queries = new Set<string>();
  #used = false;
  /** True once the statement has run and is being held. */
  reached = false;
  release!: () => void;
  readonly #gate = new Promise<void>((resolve) => (this.release = resolve));

  constructor(private readonly matches: (node: RootOperationNode) => boolean) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (!this.#used && this.matches(args.node)) this.#queries.add(args.queryId.queryId);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (!this.#used && this.#queries.has(args.queryId.queryId)) {
      this.#used = true;
      this.reached = true;
      await this.#gate;
    }
    return args.result;
  }
}

/** Holds the first statement that names `table` anywhere (a read joining it included). */
export const pauseAfterFirstRead = (table: string) => new StatementPause((node) => JSON.stringify(node).includes(`"${table}"`));

/** Holds the first INSERT into `table`. */
export const pauseAfterInsert = (table: string) =>
  new StatementPause((node) => {
    const insert = node as { kind: string; into?: { table?: { identifier?: { name?: string } } } };
    return insert.kind === 'InsertQueryNode' && insert.into?.table?.identifier?.name === table;
  });
