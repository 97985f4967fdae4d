/**
 * tedious adapted to Soft Restaurant's SQL Server: rows given the value shapes pg gives, varchar
 * parameters for ASCII keys, datetime2 for dates, the lock timeout in every session, and no
 * second rollback after the server ended a transaction itself.
 */
import { MssqlAdapter } from 'kysely';
import * as tedious from 'tedious';

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
 * - each session starts with `SET LOCK_TIMEOUT` (SQL Server's own default is to wait for ever)
 *   and `SET DEADLOCK_PRIORITY LOW`, sent with tedious's own session options, so it costs no
 *   round trip. In a deadlock with a Soft Restaurant terminal the agent is the victim: the
 *   runner runs a deadlocked write again, the terminal has no such retry and shows an error;
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
    return `${super.getInitialSql()}\nset lock_timeout ${Math.trunc(this.lockTimeoutMs)}\nset deadlock_priority low`;
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
