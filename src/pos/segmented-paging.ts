import type { SelectQueryBuilder } from 'kysely';
import { toPage, type Page } from '../protocol/common.js';

/** One part of a result made of several queries read one after the other. */
export interface Segment<T> {
  count: () => Promise<number>;
  read: (offset: number, fetch: number) => Promise<T[]>;
}

/** A segment from an ordered query (SQL Server's OFFSET/FETCH needs ORDER BY); the count drops the ordering. */
export function querySegment<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): Segment<O> {
  return {
    async count() {
      const counted = await query
        .clearSelect()
        .clearOrderBy()
        .select((eb) => eb.fn.countAll<number | string>().as('total'))
        .executeTakeFirstOrThrow();
      return Number((counted as { total: number | string }).total);
    },
    read: (offset, fetch) => query.offset(offset).fetch(fetch).execute(),
  };
}

/** A segment whose rows are mapped as they are read. */
export function mappedSegment<DB, TB extends keyof DB, O, T>(query: SelectQueryBuilder<DB, TB, O>, map: (row: O) => T): Segment<T> {
  const segment = querySegment(query);
  return { count: segment.count, read: async (offset, fetch) => (await segment.read(offset, fetch)).map(map) };
}

/**
 * A page of the concatenation of several segments (stations: terminals, areas, then tables; the
 * closed orders of one chunk of shifts after another). Every segment is counted, then only those the
 * page overlaps are read, each with its own OFFSET/FETCH: the page is exact without one statement
 * over everything and without merging rows in memory. A single segment is read first instead:
 * a page that is not full, and not past the end, tells the total without a count.
 */
export async function selectPageAcross<T>(segments: ReadonlyArray<Segment<T>>, paging: { page: number; pageSize: number }): Promise<Page<T>> {
  if (segments.length === 1) return selectPageOf(segments[0]!, paging);
  const counts: number[] = [];
  for (const segment of segments) counts.push(await segment.count());
  const total = counts.reduce((a, b) => a + b, 0);
  let skip = (paging.page - 1) * paging.pageSize;
  let wanted = paging.pageSize;
  const data: T[] = [];
  for (const [i, segment] of segments.entries()) {
    const size = counts[i]!;
    if (wanted === 0) break;
    if (skip >= size) {
      skip -= size;
      continue;
    }
    const take = Math.min(wanted, size - skip);
    data.push(...(await segment.read(skip, take)));
    wanted -= take;
    skip = 0;
  }
  return toPage(data, total, paging.page, paging.pageSize);
}

/**
 * One segment: its statement can be costly to plan (a search's 10,000 shift numbers took a third
 * of its time in each), and a page that is not full already says how many rows there are.
 */
async function selectPageOf<T>(segment: Segment<T>, paging: { page: number; pageSize: number }): Promise<Page<T>> {
  const offset = (paging.page - 1) * paging.pageSize;
  const data = await segment.read(offset, paging.pageSize);
  const known = data.length < paging.pageSize && (data.length > 0 || offset === 0);
  return toPage(data, known ? offset + data.length : await segment.count(), paging.page, paging.pageSize);
}
