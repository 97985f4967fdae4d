import type { SelectQueryBuilder } from 'kysely';
import { toPage, type Page } from '../protocol/common.js';

/**
 * Runs a filtered query twice: once counted, once for the requested page. `query` must be
 * ordered (SQL Server's OFFSET/FETCH needs ORDER BY); the count drops the ordering.
 */
export async function selectPage<DB, TB extends keyof DB, O, T>(
  query: SelectQueryBuilder<DB, TB, O>,
  paging: { page: number; pageSize: number },
  map: (row: O) => T,
): Promise<Page<T>> {
  const counted = await query
    .clearSelect()
    .clearOrderBy()
    .select((eb) => eb.fn.countAll<number | string>().as('total'))
    .executeTakeFirstOrThrow();
  const total = Number((counted as { total: number | string }).total);
  const offset = (paging.page - 1) * paging.pageSize;
  const rows = offset >= total ? [] : await query.offset(offset).fetch(paging.pageSize).execute();
  return toPage(rows.map(map), total, paging.page, paging.pageSize);
}
