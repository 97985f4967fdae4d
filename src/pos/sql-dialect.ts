/**
 * Every difference between SQL Server and PostgreSQL the operations meet, in one place.
 *
 * Operations build dialect-neutral Kysely queries. What differs is translated here, at compile
 * time, so the same query node runs on PostgreSQL in tests and compiles to the T-SQL a branch
 * runs (and that the saved expectations record):
 * - `.forUpdate()` on a select becomes `WITH (UPDLOCK, ROWLOCK)` on SQL Server, or
 *   `WITH (TABLOCKX)` for the counter tables that Soft Restaurant itself locks whole;
 * - `.returning(identityColumn)` on an insert becomes `; SELECT SCOPE_IDENTITY()`, which, unlike
 *   a bare OUTPUT clause, still works on tables that carry triggers;
 * - paging uses `.offset().fetch()`, which both dialects accept;
 * - LIKE patterns are escaped with one escape character valid in both (`likeContains`);
 * - casts to `boolean` and `timestamp`, which INSERT … SELECT needs for parameters on
 *   PostgreSQL, become `bit` and `datetime` (T-SQL's `timestamp` is a row version);
 * - whole-table locks and identity reseeds (`lockTable`, `reseedIdentity`) have no common spelling;
 * - a fingerprint's `decode(md5(text), 'hex')` (`rowFingerprint`) becomes `hashbytes('MD5', …)`:
 *   16 bytes on both, never turned into text by the server.
 * - `octet_length(text)`, a text's length in bytes, trailing blanks included, is `datalength`.
 * - SQL Server keeps the plan of every statement sent through sp_executesql; PostgreSQL plans
 *   each again unless it is prepared, which `planOnce` asks for (postgres-dialect.ts).
 * Dates are computed in JavaScript and passed as branch-local parameters; no SQL date arithmetic.
 */
import { createHash } from 'node:crypto';
import {
  AliasNode,
  BinaryOperationNode,
  ColumnNode,
  DataTypeNode,
  FunctionNode,
  IdentifierNode,
  MssqlAdapter,
  MssqlQueryCompiler,
  OperatorNode,
  PrimitiveValueListNode,
  RawNode,
  ReferenceNode,
  sql,
  TableNode,
  ValueNode,
  type AliasableExpression,
  type CompiledQuery,
  type Expression,
  type ExpressionBuilder,
  type FromNode,
  type InsertQueryNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RawBuilder,
  type RootOperationNode,
  type SelectQueryNode,
  type SqlBool,
  type UnknownRow,
} from 'kysely';
import type { PosDb } from './schema.js';

export type PosDialectName = 'postgres' | 'mssql';

/** Which dialect a connection speaks, for code handed only the Kysely instance. */
export function dialectOf(db: PosDb): PosDialectName {
  return db.getExecutor().adapter instanceof MssqlAdapter ? 'mssql' : 'postgres';
}

/** Tables whose counters Soft Restaurant allocates under an exclusive table lock. */
const COUNTER_TABLES = new Set(['folios', 'parametros']);

function tableName(node: FromNode['froms'][number]): string | undefined {
  const inner = AliasNode.is(node) ? node.node : node;
  return TableNode.is(inner) ? inner.table.identifier.name : undefined;
}

/** T-SQL names of the types the operations cast to with PostgreSQL's names. */
const MSSQL_TYPES: Record<string, string> = { boolean: 'bit', timestamp: 'datetime' };

export class MssqlPosQueryCompiler extends MssqlQueryCompiler {
  #lockStack: boolean[] = [];

  protected override visitDataType(node: DataTypeNode): void {
    const mapped = typeof node.dataType === 'string' ? MSSQL_TYPES[node.dataType] : undefined;
    super.visitDataType(mapped ? { ...node, dataType: mapped as DataTypeNode['dataType'] } : node);
  }

  protected override visitFunction(node: FunctionNode): void {
    if (node.func === 'octet_length') return super.visitFunction({ ...node, func: 'datalength' });
    const hashed = node.func === 'decode' ? node.arguments[0] : undefined;
    if (hashed && FunctionNode.is(hashed) && hashed.func === 'md5') {
      this.append("hashbytes('MD5', ");
      this.compileList(hashed.arguments);
      this.append(')');
      return;
    }
    if (node.func === 'md5' || node.func === 'decode') throw new Error(`T-SQL: ${node.func} only as rowFingerprint's decode(md5(…), 'hex')`);
    super.visitFunction(node);
  }

  protected override visitBinaryOperation(node: BinaryOperationNode): void {
    const numbers = anyOfArray(node);
    if (!numbers) return super.visitBinaryOperation(node);
    this.visitNode(node.leftOperand);
    this.append(' in ');
    this.visitNode(PrimitiveValueListNode.create(numbers));
  }

  protected override visitSelectQuery(node: SelectQueryNode): void {
    const modifiers = node.endModifiers ?? [];
    const forUpdate = modifiers.some((m) => m.modifier === 'ForUpdate');
    this.#lockStack.push(forUpdate);
    super.visitSelectQuery(forUpdate ? { ...node, endModifiers: modifiers.filter((m) => m.modifier !== 'ForUpdate') } : node);
    this.#lockStack.pop();
  }

  protected override visitFrom(node: FromNode): void {
    if (!this.#lockStack.at(-1)) return super.visitFrom(node);
    this.append('from ');
    node.froms.forEach((from, i) => {
      if (i > 0) this.append(', ');
      this.visitNode(from);
      this.append(COUNTER_TABLES.has(tableName(from) ?? '') ? ' with (tablockx)' : ' with (updlock, rowlock)');
    });
  }

  protected override visitInsertQuery(node: InsertQueryNode): void {
    if (!node.returning) return super.visitInsertQuery(node);
    const selections = node.returning.selections;
    const only = selections.length === 1 ? selections[0]!.selection : undefined;
    const column = only && ReferenceNode.is(only) && ColumnNode.is(only.column) ? only.column.column.name : undefined;
    if (!column) throw new Error('T-SQL: an insert may only return its identity column');
    super.visitInsertQuery({ ...node, returning: undefined });
    this.append('; select cast(scope_identity() as bigint) as ');
    this.visitNode(IdentifierNode.create(column));
  }
}

/** Catalog expressions that have no common spelling, and whether the server compares names ignoring case. */
export function introspection(dialect: PosDialectName) {
  return dialect === 'mssql'
    ? {
        isIdentity: sql<number>`columnproperty(object_id(quotename(table_schema) + '.' + quotename(table_name)), column_name, 'IsIdentity')`,
        currentSchema: sql<string>`schema_name()`,
        // Soft Restaurant databases use case-insensitive collations, which cover identifiers too.
        namesIgnoreCase: true,
      }
    : {
        isIdentity: sql<number>`case when is_identity = 'YES' then 1 else 0 end`,
        currentSchema: sql<string>`current_schema()`,
        namesIgnoreCase: false,
      };
}

/**
 * A hash of values, computed by the server so that only the hash crosses the network: `concat`
 * (both dialects: NULL as '') with a separator, then the 16 bytes of its MD5 (bytea,
 * varbinary), which every driver hands over as a Buffer. Each dialect renders numbers and dates
 * its own way; a fingerprint is only ever compared with another from the same server.
 *
 * SQL Server 2014 refuses HASHBYTES input over 8,000 bytes: the saved T-SQL's fingerprints are
 * proved shorter from the reference schema's column types (test/unit/fingerprint-size.test.ts).
 */
export function rowFingerprint(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any query's expression builder
  eb: ExpressionBuilder<any, any>,
  values: ReadonlyArray<Expression<unknown>>,
): AliasableExpression<Buffer> {
  const parts = values.flatMap((v, i) => (i === 0 ? [v] : [sql.lit('|'), v]));
  return eb.fn<Buffer>('decode', [eb.fn('md5', [eb.fn('concat', parts)]), sql.lit('hex')]);
}

/** `LIKE` special characters of both dialects (`[` opens a class on SQL Server). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_[]/g, (ch) => `\\${ch}`);
}

/** Case-insensitive partial match that takes `%`, `_` and `[` in the search literally. */
export function likeContains(value: Expression<unknown>, search: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(${value}) like ${`%${escapeLike(search.toLowerCase())}%`} escape '\\'`;
}

/**
 * The parameter of `inNumbers`: pg hands it to PostgreSQL as the array's text, `{1,2,3}`. Given
 * a JS array, pg writes each element as a quoted, escaped string: for 10,000 shift numbers that
 * took 2.5 ms of the agent's time per statement, and the server's parsing of the quotes more.
 */
class NumberArray {
  readonly numbers: readonly number[];

  constructor(numbers: readonly number[]) {
    if (!numbers.every(Number.isFinite)) throw new Error('inNumbers: only finite numbers');
    this.numbers = numbers;
  }

  /** pg's hook for a parameter's text (its prepareValue). */
  toPostgres(): string {
    return `{${this.numbers.join(',')}}`;
  }
}

/**
 * The longest list PostgreSQL reads as a value it can see. Planning `= any($1)`, it estimates
 * each element against the column's statistics: for 10,000 shift numbers 8.6 ms of planning,
 * twice a search, against 0.85 ms to run each statement. A longer list is read from a subquery
 * (`array(select unnest($1))`), which the planner takes as one value of unknown content.
 */
const ESTIMATED_LIST_MAX = 100;

/**
 * `value IN (numbers)`, written as PostgreSQL's `value = any($1)`: the whole list is one array
 * parameter, parsed as one value however long it is (and, past ESTIMATED_LIST_MAX, planned as
 * one: compared as `numeric`, the type of the shift numbers it is for). SQL Server has no arrays:
 * the compiler spells it `value in (@1, @2, …)`, a parameter per number, and a statement takes
 * at most 2,100, so callers cut long lists into chunks of `IN_LIST_LIMIT`.
 */
export function inNumbers(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any query's expression builder
  eb: ExpressionBuilder<any, any>,
  value: Expression<unknown>,
  numbers: readonly number[],
): Expression<SqlBool> {
  const list = new NumberArray(numbers);
  return eb(value, '=', eb.fn('any', [numbers.length <= ESTIMATED_LIST_MAX ? eb.val(list) : sql`array(select unnest(cast(${list} as numeric[])))`]));
}

/** How many numbers one `inNumbers` list may hold: on SQL Server, room is left for the filters beside it. */
export const IN_LIST_LIMIT: Record<PosDialectName, number> = { mssql: 2_000, postgres: 10_000 };

/** `inNumbers`' node: `= any(<array parameter>)`, or `= any(array(select unnest(<array parameter>)))`. */
function anyOfArray(node: BinaryOperationNode): readonly unknown[] | undefined {
  const right = node.rightOperand;
  if (!OperatorNode.is(node.operator) || node.operator.operator !== '=' || !FunctionNode.is(right) || right.func !== 'any') return undefined;
  const only = right.arguments.length === 1 ? right.arguments[0] : undefined;
  const list = only && RawNode.is(only) && only.parameters.length === 1 ? only.parameters[0] : only;
  return list && ValueNode.is(list) && list.value instanceof NumberArray ? list.value.numbers : undefined;
}

/** The T-SQL that SQL Server would run for a query node built for either dialect. */
export function compileTsql(node: RootOperationNode): CompiledQuery {
  return new MssqlPosQueryCompiler().compileQuery(TSQL_FORMS.get(node) ?? node, { queryId: '' });
}

/** The statements planOnce marked, by their SQL, with their prepared statement's name. */
const PLANNED_ONCE = new Map<string, string>();

/**
 * A compiled statement that PostgreSQL plans once per connection (a named prepared statement),
 * for one that runs every few hundred milliseconds and whose planning is a fifth of its cost.
 * Only for a statement whose result columns keep their types whatever the tables' columns are.
 */
export function planOnce<R>(compiled: CompiledQuery<R>): CompiledQuery<R> {
  PLANNED_ONCE.set(compiled.sql, `ba_${createHash('sha256').update(compiled.sql).digest('hex').slice(0, 32)}`);
  return compiled;
}

/** The prepared statement's name for a statement planOnce marked; undefined for any other. */
export function plannedOnceName(sql: string): string | undefined {
  return PLANNED_ONCE.get(sql);
}

/**
 * Records the T-SQL form of every statement a Kysely instance executes, in order. Subqueries
 * pass through transformQuery too but never produce a result, so only executed statements
 * are kept. A statement compiled once and executed many times is recorded each time.
 */
export class TsqlRecorder implements KyselyPlugin {
  readonly statements: string[] = [];
  readonly #compiled = new Map<string, RootOperationNode>();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.#compiled.set(args.queryId.queryId, args.node);
    return args.node;
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const node = this.#compiled.get(args.queryId.queryId);
    if (node) this.statements.push(compileTsql(node).sql);
    return Promise.resolve(args.result);
  }
}

/**
 * The SQL Server form of statements that have no common spelling, by the node that ran, for
 * `compileTsql` to show; compiled only when asked, as the T-SQL recorder of the tests does.
 */
const TSQL_FORMS = new WeakMap<RootOperationNode, RootOperationNode>();

/** Runs the form for the connection's dialect; the T-SQL expectations record the SQL Server form. */
async function runDialectStatement(db: PosDb, forms: { mssql: RawBuilder<unknown>; postgres: RawBuilder<unknown> }): Promise<QueryResult<unknown>> {
  const chosen = dialectOf(db) === 'mssql' ? forms.mssql : forms.postgres;
  TSQL_FORMS.set(chosen.toOperationNode(), forms.mssql.toOperationNode());
  return chosen.execute(db);
}

/** An idempotency record as `insertKeyIfAbsent` writes it. */
export interface IdempotencyRow {
  scope: string;
  idem_key: string;
  fingerprint: string;
  op: string;
  result: string;
  created_at: Date;
  expires_at: Date;
}

/** An origin mark as `insertKeyIfAbsent` writes it beside the key (ba_event_origins). */
export interface OriginRow {
  kind: string;
  entity: string;
  job_id: string;
  created_at: Date;
}

/**
 * Inserts an idempotency record unless one with its key exists, and the write's origin marks,
 * in one round trip; true when the key was inserted. Either way a concurrent insert of the same
 * key is waited for: PostgreSQL's `ON CONFLICT DO NOTHING` waits for the other transaction to
 * end, and SQL Server's `WHERE NOT EXISTS` reads the key under UPDLOCK, HOLDLOCK, which the
 * other one holds until it commits. (A key found makes the caller roll the marks back with the
 * rest of the write.)
 */
export async function insertKeyIfAbsent(trx: PosDb, row: IdempotencyRow, origins: readonly OriginRow[]): Promise<boolean> {
  const columns = sql`(scope, idem_key, fingerprint, op, result, created_at, expires_at)`;
  const values = sql.join([row.scope, row.idem_key, row.fingerprint, row.op, row.result, row.created_at, row.expires_at]);
  const marks =
    origins.length > 0
      ? sql`insert into ba_event_origins (kind, entity, job_id, created_at) values ${sql.join(origins.map((o) => sql`(${o.kind}, ${o.entity}, ${o.job_id}, ${o.created_at})`))}`
      : undefined;
  const key = sql`insert into ba_idempotency ${columns}`;
  const result = await runDialectStatement(trx, {
    // A batch: SQL Server has no INSERT in a WITH; @@ROWCOUNT is the key's insert's.
    mssql: sql`${marks ? sql`${marks}; ` : sql``}${key} select ${values} where not exists (select 1 from ba_idempotency with (updlock, holdlock) where scope = ${row.scope} and idem_key = ${row.idem_key}); select @@rowcount as inserted`,
    postgres: sql`with ${marks ? sql`marks as (${marks}), ` : sql``}recorded as (${key} values (${values}) on conflict (scope, idem_key) do nothing returning 1) select count(*) as inserted from recorded`,
  });
  return Number((result.rows[0] as { inserted: number | string | bigint } | undefined)?.inserted ?? 0) > 0;
}

/**
 * Holds an exclusive lock on a whole table until the transaction ends, as Soft Restaurant's
 * TABLOCKX does: nobody else writes it (or, on SQL Server, reads it) meanwhile.
 *
 * SQL Server takes a table hint's lock only when the plan reads the table, as SR's own
 * `SELECT … FROM folios WITH (TABLOCKX) WHERE …` does (order-lifecycle rows 88, 360); a `TOP 0`
 * may be answered without touching the table, and lock nothing. `max(folio)` reads one row of
 * the clustered key (both tables' primary key) where a `count(*)` read years of `cheques`
 * history. An exclusive lock lasts until the transaction ends whatever the isolation level.
 */
export async function lockTable(trx: PosDb, table: 'tempcheques' | 'cheques'): Promise<void> {
  await runDialectStatement(trx, {
    mssql: sql`select max(folio) as locked from ${sql.table(table)} with (tablockx)`,
    postgres: sql`lock table ${sql.table(table)} in exclusive mode`,
  });
}

/**
 * SR's `DBCC CHECKIDENT (…, RESEED, last)` (shift-close rows 69-70, 136-137), with SQL Server's
 * meaning on both servers: the next identity value is `last + 1`, except on a table that never
 * had a row, whose next value is `last` itself. So a reseed to 0 of a `tempcheques` that never
 * had an account makes the next folio 0, on SQL Server as in SR (row 137), and here alike:
 * PostgreSQL's sequence of such a table was never called. Not undone by a rollback on PostgreSQL.
 */
export async function reseedIdentity(db: PosDb, table: 'tempcheques' | 'cheques', column: 'folio', last: number): Promise<void> {
  if (!Number.isSafeInteger(last) || last < 0) throw new RangeError(`identity reseed to ${last}`);
  const sequence = sql`pg_get_serial_sequence(${sql.lit(`"${table}"`)}, ${sql.lit(column)})::regclass`;
  await runDialectStatement(db, {
    mssql: sql`dbcc checkident (${sql.lit(table)}, reseed, ${sql.lit(last)}) with no_infomsgs`,
    postgres: sql`select setval(${sequence}, ${sql.lit(last)}, pg_sequence_last_value(${sequence}) is not null)`,
  });
}
