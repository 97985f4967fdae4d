/** Schema pieces shared by many operations: keys, paging, query-string scalars, list results. */
import { z } from 'zod';

export const licenseKey = z
  .string()
  .regex(/^[A-Za-z0-9]{16}$/, 'must be exactly 16 letters or digits');

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/** Query strings arrive as text; numbers are parsed strictly (no `''` → 0). */
const intFromQuery = z.union([z.number(), z.string().regex(/^-?\d+$/, 'must be an integer').transform(Number)]);

/** `page` from 1; `pageSize` from 1, cut to `max` (the applied value is returned to the client). */
export function paging(max = MAX_PAGE_SIZE) {
  return {
    page: intFromQuery.pipe(z.number().int().min(1)).default(1),
    pageSize: intFromQuery
      .pipe(z.number().int().min(1))
      .default(DEFAULT_PAGE_SIZE)
      .transform((n) => Math.min(n, max)),
  };
}

export const search = z.string().max(200).optional();

export const booleanQuery = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
  .transform((v) => v === true || v === 'true' || v === '1');

export const integerQuery = intFromQuery.pipe(z.number().int());

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
/** Branch-local time with the branch's UTC offset, e.g. 2026-11-21T14:05:00-06:00. */
export const localDateTime = z.string();
