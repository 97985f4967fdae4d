/** Schema pieces shared by many operations: keys, paging, query-string scalars, list results. */
import { z } from 'zod';

export const licenseKey = z.string().regex(/^[A-Za-z0-9]{16}$/, 'must be exactly 16 letters or digits');

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/**
 * An integer that may arrive as query-string or path text: its digits are read as the number
 * (never `''` → 0), anything else is left for the schema to refuse; in a body it is a JSON
 * number. Described as the integer it is, so OpenAPI says `integer` with its bounds rather than
 * a union with strings.
 */
export function integer(bounds: (n: z.ZodNumber) => z.ZodNumber = (n) => n) {
  return z.preprocess(
    (v) => (typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v),
    bounds(z.number({ error: 'must be an integer' }).int('must be an integer')),
  );
}

const pageNumber = integer((n) => n.min(1));

/** `page` from 1; `pageSize` from 1, cut to `max` (the applied value is returned to the client). */
export function paging(max = MAX_PAGE_SIZE) {
  return {
    page: pageNumber.default(1),
    pageSize: pageNumber.default(DEFAULT_PAGE_SIZE).transform((n) => Math.min(n, max)),
  };
}

export const search = z.string().max(200).optional();

export const booleanQuery = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');

/** The seed's operational day: 06:00 to 05:59:59 of the next day unless `dayStartHour` says otherwise. */
export const DEFAULT_DAY_START_HOUR = 6;

export const dayStartHour = integer((n) => n.min(0).max(23)).default(DEFAULT_DAY_START_HOUR);

export function pageResult<T extends z.ZodType>(record: T) {
  return z.object({
    page: z.number().int(),
    pageSize: z.number().int(),
    totalResults: z.number().int(),
    totalPages: z.number().int(),
    hasNextPage: z.boolean(),
    data: z.array(record),
  });
}

export function listResult<T extends z.ZodType>(record: T) {
  return z.object({ totalResults: z.number().int(), data: z.array(record) });
}

export interface Page<T> {
  page: number;
  pageSize: number;
  totalResults: number;
  totalPages: number;
  hasNextPage: boolean;
  data: T[];
}

export function toPage<T>(data: T[], totalResults: number, page: number, pageSize: number): Page<T> {
  const totalPages = Math.ceil(totalResults / pageSize);
  return { page, pageSize, totalResults, totalPages, hasNextPage: page < totalPages, data };
}

/** Money and rates go out as JSON numbers made from decimal strings, never from float math. */
export const money = z.number();

/** Decimal inputs: JSON numbers with a bounded number of decimals (money is never float math). */
export function decimal(places: number) {
  return z.number().refine((n) => Number.isFinite(n) && Number(n.toFixed(places)) === n, `at most ${places} decimals`);
}
/** Branch-local time with the branch's UTC offset, e.g. 2026-11-21T14:05:00-06:00. */
export const localDateTime = z.string();

// ---------------------------------------------------------------------------------------------
// Date filters. A value is validated wherever the schema runs but only turned into a point in
// time on the agent: without an offset it means the branch's wall clock, which only the agent
// process knows (the gateway may run in another zone), so the schema keeps the text as sent.
// ---------------------------------------------------------------------------------------------

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

export interface DateFilterValue {
  /** The instant named; without an offset, wall-clock time of the process's zone. */
  at: Date;
  /** Only a calendar date was sent (`2026-11-21`): it means that whole day. */
  dateOnly: boolean;
  /** The span the value names: a minute for 14:05, a second for 14:05:30, 1 ms with a fraction. */
  spanMs: number;
}

/** Reads an ISO 8601 date or date-time; null when it is malformed or names no real time (02-30, 25:00). */
export function parseDateFilter(value: string): DateFilterValue | null {
  const m = ISO_DATE_TIME.exec(value);
  if (!m) return null;
  const part = (i: number) => Number(m[i] ?? 0);
  const [y, mo, d, h, mi, s] = [part(1), part(2) - 1, part(3), part(4), part(5), part(6)] as const;
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const fields = Date.UTC(y, mo, d, h, mi, s, ms);
  const check = new Date(fields);
  // Date.UTC rolls 02-30 over to 03-02 and 25:00 to the next day: a real time reads back unchanged.
  const sent = [y, mo, d, h, mi, s];
  const read = [check.getUTCFullYear(), check.getUTCMonth(), check.getUTCDate(), check.getUTCHours(), check.getUTCMinutes(), check.getUTCSeconds()];
  if (read.some((v, i) => v !== sent[i])) return null;
  const zone = m[8];
  const spanMs = m[7] !== undefined ? 1 : m[6] !== undefined ? 1000 : 60_000;
  if (zone === undefined) return { at: new Date(y, mo, d, h, mi, s, ms), dateOnly: m[4] === undefined, spanMs };
  if (zone.toUpperCase() === 'Z') return { at: check, dateOnly: false, spanMs };
  const digits = zone.slice(1).replace(':', '');
  const offsetHours = Number(digits.slice(0, 2));
  const offsetMinutes = Number(digits.slice(2) || '0');
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const sign = zone.startsWith('-') ? -1 : 1;
  return { at: new Date(fields - sign * (offsetHours * 60 + offsetMinutes) * 60_000), dateOnly: false, spanMs };
}

/** A date filter in a query string or body: ISO 8601, with or without offset (without = branch local time). */
export const dateFilter = z
  .string()
  .max(40)
  .refine((v) => parseDateFilter(v) !== null, 'must be an ISO 8601 date or date-time, e.g. 2026-11-21, 2026-11-21T14:05:00 or 2026-11-21T14:05:00-06:00')
  .describe('ISO 8601; without an offset it is branch local time; a date alone means that whole day');

/**
 * The comparison a `…Start` / `…End` filter stands for. Both ends are inclusive of everything
 * the value names: an end of `2026-11-21` takes in that whole day ("before the next midnight"),
 * an end of `14:05:30` the whole second (the POS keeps milliseconds the API does not show).
 */
export function dateFilterBound(value: string, side: 'start' | 'end'): { op: '>=' | '<'; at: Date } {
  const parsed = parseDateFilter(value);
  if (!parsed) throw new RangeError(`not an ISO 8601 date filter: ${value}`);
  const at = parsed.at;
  if (side === 'start') return { op: '>=', at: withinYear9999(at) };
  // The next day's midnight, made from the date: where midnight does not exist (Santiago in
  // September) the day starts at 01:00, and a day counted on from that would take in an hour of the next.
  if (parsed.dateOnly) return { op: '<', at: withinYear9999(new Date(at.getFullYear(), at.getMonth(), at.getDate() + 1)) };
  return { op: '<', at: withinYear9999(laterOnWallClock(at, parsed.spanMs)) };
}

/**
 * `at` plus `ms` on the branch's wall clock, which is what the database compares (the POS keeps no
 * zone; the drivers send a bound's local fields). Added to the instant instead, the end of
 * 23:59 before Santiago's clocks go back at midnight would be 23:00 of the repeated hour: the
 * filter would leave out the whole last hour.
 */
function laterOnWallClock(at: Date, ms: number): Date {
  const later = new Date(at);
  // setMilliseconds works on local time, and unlike new Date(y, …) keeps years below 100.
  later.setMilliseconds(later.getMilliseconds() + ms);
  return later;
}

/**
 * No later than 9999-12-31 23:59:59.999 branch time: the end of `9999-12-31` (or a late time with
 * an offset behind the branch's) is in year 10000, which tedious refuses as a datetime2 parameter,
 * a 500 on SQL Server. SR's datetime columns end at 23:59:59.997, so the selection is the same.
 */
function withinYear9999(at: Date): Date {
  const last = new Date(9999, 11, 31, 23, 59, 59, 999);
  return at > last ? last : at;
}
