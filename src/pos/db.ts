/**
 * The POS database connection and every difference between SQL Server and PostgreSQL.
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
 * - whole-table locks and identity reseeds (`lockTable`, `reseedIdentity`) have no common spelling.
 * Dates are computed in JavaScript and passed as branch-local parameters; no SQL date arithmetic.
 * Rows read from SQL Server are given the shapes pg gives (`pgShapedRow`), so every value the
 * operations see is the same on both and the PostgreSQL suite covers what branches read.
 */
import {
  DataTypeNode,
  Kysely,
  MssqlAdapter,
  MssqlDialect,
  MssqlIntrospector,
  MssqlQueryCompiler,
  PostgresDialect,
  sql,
  type CompiledQuery,
  type Dialect,
  type FromNode,
  type InsertQueryNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type SelectQueryNode,
  type UnknownRow,
  type Expression,
  type RawBuilder,
  type SqlBool,
  ColumnNode,
  ReferenceNode,
  TableNode,
  AliasNode,
  IdentifierNode,
} from 'kysely';
import pg from 'pg';
import * as tedious from 'tedious';
import * as tarn from 'tarn';
import { createPgPool } from '../postgres-pool.js';
import type { PosDatabase } from './schema.js';

export type PosDialectName = 'postgres' | 'mssql';

/** Settings both dialects share. */
interface PosDbCommon {
  poolSize?: number;
  /**
   * How long a statement waits for a row or table a terminal holds before it gives up
   * (`pos_busy`), rather than holding the job until its deadline. Default 10 s: twice the
   * interval of SQL Server's deadlock monitor, so a deadlock is still found and retried first.
   */
  lockTimeoutMs?: number;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

export type PosDbConfig =
  | (PosDbCommon & { dialect: 'postgres'; url: string })
  | (PosDbCommon & {
      dialect: 'mssql';
      server: string;
      /** Named instance (`SERVER\INSTANCE`), resolved through SQL Browser. */
      instanceName?: string;
      port?: number;
      database: string;
      authentication:
        | { type: 'sql'; user: string; password: string }
        | { type: 'ntlm'; domain: string; user: string; password: string };
      encrypt?: boolean;
      trustServerCertificate?: boolean;
      connectTimeoutMs?: number;
      requestTimeoutMs?: number;
    });

export type PosDb = Kysely<PosDatabase>;

export interface PosConnection {
  db: PosDb;
  dialect: PosDialectName;
  close(): Promise<void>;
}

// pg returns int8 as text to protect values above 2^53; POS counters never get there.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function createPosDb(config: PosDbConfig): PosConnection {
  const dialect = config.dialect === 'postgres' ? postgresDialect(config) : mssqlDialect(config);
  const db = new Kysely<PosDatabase>({ dialect });
  return { db, dialect: config.dialect, close: () => db.destroy() };
}

function postgresDialect(config: Extract<PosDbConfig, { dialect: 'postgres' }>): Dialect {
  return new PostgresDialect({ pool: createPgPool({ ...withLockTimeout(config.url, config.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS), max: config.poolSize ?? 10 }) });
}

/**
 * The connection settings with `-c lock_timeout` in `options`. pg lets a URL's own `options`
 * replace a separate setting, so they are joined in the URL; a URL the WHATWG parser rejects
 * (a socket path: `postgresql://user@/db?host=/run/postgresql`) cannot carry them anyway.
 */
export function withLockTimeout(url: string, ms: number): { connectionString: string; options?: string } {
  const setting = `-c lock_timeout=${Math.trunc(ms)}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, options: setting };
  }
  parsed.searchParams.set('options', [parsed.searchParams.get('options'), setting].filter(Boolean).join(' '));
  return { connectionString: parsed.toString() };
}

function mssqlDialect(config: Extract<PosDbConfig, { dialect: 'mssql' }>): Dialect {
  const base = new MssqlDialect({
    // A connection that cannot be made fails the request waiting for it at once (pos_unavailable),
    // rather than being retried until tarn's acquire timeout outlasts the gateway's job timeout.
    tarn: { ...tarn, options: { min: 0, max: config.poolSize ?? 10, propagateCreateError: true } },
    tedious: {
      ...tedious,
      Request: PosRequest,
      connectionFactory: () => new PosTediousConnection(tediousConfig(config), config.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS),
    },
  });
  return {
    createAdapter: () => new PosMssqlAdapter(),
    createDriver: () => base.createDriver(),
    createIntrospector: (db) => new MssqlIntrospector(db),
    createQueryCompiler: () => new MssqlPosQueryCompiler(),
  };
}

export function tediousConfig(config: Extract<PosDbConfig, { dialect: 'mssql' }>): tedious.ConnectionConfiguration {
  const auth = config.authentication;
  return {
    server: config.server,
    authentication:
      auth.type === 'ntlm'
        ? { type: 'ntlm', options: { domain: auth.domain, userName: auth.user, password: auth.password } }
        : { type: 'default', options: { userName: auth.user, password: auth.password } },
    options: {
      database: config.database,
      ...(config.instanceName ? { instanceName: config.instanceName } : { port: config.port ?? 1433 }),
      encrypt: config.encrypt ?? false,
      trustServerCertificate: config.trustServerCertificate ?? true,
      // The POS stores branch-local wall-clock times; UTC conversion would shift every date.
      useUTC: false,
      lowerCaseGuids: true,
      connectTimeout: config.connectTimeoutMs ?? 15_000,
      requestTimeout: config.requestTimeoutMs ?? 30_000,
      appName: 'branch-agent',
    },
  };
}

const DECIMAL_TYPES = new Set(['Decimal', 'DecimalN', 'Numeric', 'NumericN', 'Money', 'MoneyN', 'SmallMoney']);

interface TediousColumn {
  value: unknown;
  metadata: { type: { name: string }; scale?: number | undefined };
}

/**
 * Gives a SQL Server row the value shapes pg gives: numeric as text with the column's scale
 * ('36.9241', not 36.9241) and bigint as a number (tedious sends it as text). tedious has already
 * turned the numeric into a double; `toFixed(scale)` restores its exact digits up to 15
 * significant digits, which a double always round-trips (10^11 at 4 decimals, far above any POS
 * amount).
 */
export function pgShapedRow(columns: TediousColumn[]): void {
  for (const column of columns) {
    const { value, metadata } = column;
    if (typeof value === 'number' && DECIMAL_TYPES.has(metadata.type.name)) {
      column.value = value.toFixed(metadata.scale ?? (metadata.type.name.includes('Money') ? 4 : 0));
    } else if (typeof value === 'string' && (metadata.type.name === 'BigInt' || metadata.type.name === 'IntN')) {
      column.value = Number(value);
    }
  }
}

/**
 * Kysely hands back the rows of an insert's `.returning()` only when the adapter says the
 * dialect supports RETURNING; the compiler below answers it with `; select scope_identity()`.
 */
export class PosMssqlAdapter extends MssqlAdapter {
  override get supportsReturning(): boolean {
    return true;
  }
}

/**
 * A tedious connection adapted to the POS:
 * - each session starts with `SET LOCK_TIMEOUT` (SQL Server's own default is to wait for ever),
 *   sent with tedious's own session options, so it costs no round trip;
 * - it skips a rollback the server has already done. SQL Server ends the transaction itself when
 *   it picks it as a deadlock victim (or on a severity 20+ error) and says so in an ENVCHANGE
 *   token, which clears `inTransaction`; Kysely still rolls back on the way out, and that second
 *   rollback would fail and replace the deadlock error the runner retries on.
 */
export class PosTediousConnection extends tedious.Connection {
  constructor(
    config: tedious.ConnectionConfiguration,
    private readonly lockTimeoutMs: number,
  ) {
    super(config);
  }

  /** The batch tedious sends after login and again on every reset: its SET options, and ours. */
  override getInitialSql(): string {
    return `${super.getInitialSql()}\nset lock_timeout ${Math.trunc(this.lockTimeoutMs)}`;
  }

  override rollbackTransaction(...[callback, name]: Parameters<tedious.Connection['rollbackTransaction']>): void {
    if (!this.inTransaction) return callback(undefined);
    super.rollbackTransaction(callback, name);
  }
}

/**
 * The requests Kysely sends through tedious, adapted to the POS:
 * - each row is reshaped (`pgShapedRow`) before Kysely's row listener sees it;
 * - ASCII text parameters go as varchar, not Kysely's default nvarchar. Soft Restaurant's keys
 *   are varchar, and comparing one with an nvarchar parameter converts the column instead, which
 *   under a SQL collation turns the index seek behind `WITH (UPDLOCK, ROWLOCK)` into a scan that
 *   locks far more than the one row. ASCII reads the same in every code page; other text stays
 *   nvarchar so nothing is lost on the way.
 * - Dates go as datetime2(7), not Kysely's datetime. tedious rounds a datetime parameter to
 *   SQL Server's 1/300 s grid in the client, so a date filter's exclusive end one millisecond
 *   after its start (`< 21:30:00.001`) arrived as `< 21:30:00.000` and the window matched
 *   nothing. A datetime2 keeps the millisecond; the server compares Soft Restaurant's datetime
 *   columns with it exactly (converted to datetime2, as it does from compatibility level 130),
 *   and rounds it to the column's grid itself when it is written.
 */
export class PosRequest extends tedious.Request {
  override addParameter(...[name, type, value, options]: Parameters<tedious.Request['addParameter']>): void {
    if (type === tedious.TYPES.DateTime && value instanceof Date) return super.addParameter(name, tedious.TYPES.DateTime2, value, { ...options, scale: 7 });
    const ascii = type === tedious.TYPES.NVarChar && typeof value === 'string' && ASCII.test(value);
    super.addParameter(name, ascii ? tedious.TYPES.VarChar : type, value, options);
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'row') pgShapedRow(args[0] as TediousColumn[]);
    return (super.emit as (event: string | symbol, ...args: unknown[]) => boolean)(event, ...args);
  }
}

// eslint-disable-next-line no-control-regex -- the ASCII range is the point
const ASCII = /^[\x00-\x7f]*$/;

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

/** `LIKE` special characters of both dialects (`[` opens a class on SQL Server). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_[]/g, (ch) => `\\${ch}`);
}

/** Case-insensitive partial match that takes `%`, `_` and `[` in the search literally. */
export function likeContains(value: Expression<unknown>, search: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(${value}) like ${`%${escapeLike(search.toLowerCase())}%`} escape '\\'`;
}

/** The T-SQL that SQL Server would run for a query node built for either dialect. */
export function compileTsql(node: RootOperationNode): CompiledQuery {
  return TSQL_FORMS.get(node) ?? new MssqlPosQueryCompiler().compileQuery(node, { queryId: '' } as never);
}

/**
 * Records the T-SQL form of every statement a Kysely instance executes, in order. Subqueries
 * pass through transformQuery too but never produce a result, so only executed statements
 * are kept.
 */
export class TsqlRecorder implements KyselyPlugin {
  readonly statements: string[] = [];
  readonly #pending = new Map<string, RootOperationNode>();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.#pending.set(args.queryId.queryId, args.node);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const node = this.#pending.get(args.queryId.queryId);
    this.#pending.delete(args.queryId.queryId);
    if (node) this.statements.push(compileTsql(node).sql);
    return args.result;
  }
}

/** The T-SQL form of statements that have no common spelling, for `compileTsql` to show. */
const TSQL_FORMS = new WeakMap<RootOperationNode, CompiledQuery>();

/** Runs the form for the connection's dialect; the T-SQL expectations record the SQL Server form. */
async function runDialectStatement(db: PosDb, forms: { mssql: RawBuilder<unknown>; postgres: RawBuilder<unknown> }): Promise<void> {
  const chosen = dialectOf(db) === 'mssql' ? forms.mssql : forms.postgres;
  TSQL_FORMS.set(chosen.toOperationNode(), compileTsql(forms.mssql.toOperationNode()));
  await chosen.execute(db);
}

/**
 * Holds an exclusive lock on a whole table until the transaction ends, as Soft Restaurant's
 * TABLOCKX does: nobody else writes it (or, on SQL Server, reads it) meanwhile.
 */
export async function lockTable(trx: PosDb, table: 'tempcheques' | 'cheques'): Promise<void> {
  await runDialectStatement(trx, {
    mssql: sql`select top 0 1 as locked from ${sql.table(table)} with (tablockx, holdlock)`,
    postgres: sql`lock table ${sql.table(table)} in exclusive mode`,
  });
}

/**
 * Makes the next identity value of a table `last + 1`, as SR's `DBCC CHECKIDENT (…, RESEED,
 * last)` does (shift-close rows 69-70, 136-137). Not undone by a rollback on PostgreSQL.
 */
export async function reseedIdentity(db: PosDb, table: 'tempcheques' | 'cheques', column: 'folio', last: number): Promise<void> {
  if (!Number.isSafeInteger(last) || last < 0) throw new RangeError(`identity reseed to ${last}`);
  await runDialectStatement(db, {
    mssql: sql`dbcc checkident (${sql.lit(table)}, reseed, ${sql.lit(last)}) with no_infomsgs`,
    postgres: sql`select setval(pg_get_serial_sequence(${sql.lit(`"${table}"`)}, ${sql.lit(column)}), ${sql.lit(last + 1)}, false)`,
  });
}

/** Resolves when the database answers a trivial query. */
export async function ping(db: PosDb): Promise<void> {
  await sql`select 1`.execute(db);
}
