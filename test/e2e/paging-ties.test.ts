/**
 * Pages are OFFSET/FETCH windows of one ordered query, so the order must be total: rows that tie
 * on every ORDER BY column come back in whatever order each statement's plan gives them (a small
 * FETCH is a top-N sort on PostgreSQL, SQL Server documents the same), and paging through such a
 * list shows some rows twice and others never. These lists order by a column that is not their
 * table's key: `mesas.idmesa` (the key is `idmesasistema`; one table number can be in several
 * areas) and `turnos.idturno` (the key is `idturnointerno`; a shift number can repeat, or be null).
 */
import { describe, expect, it } from 'vitest';
import { accountSuite } from '../support/accounts.js';
import { BRANCH } from '../support/stack.js';

const { stack, db } = accountSuite();

const SIZES = [1, 2, 3, 5, 7];

/** Every row of a list, read page by page with `pageSize`, each named by `name`. */
async function pageThrough(path: string, pageSize: number, name: (row: Record<string, unknown>) => string): Promise<string[]> {
  const seen: string[] = [];
  for (let page = 1; ; page++) {
    const res = await stack().api('GET', `${path}&pageSize=${pageSize}&page=${page}`);
    expect(res.status, res.text).toBe(200);
    seen.push(...(res.body.data as Array<Record<string, unknown>>).map(name));
    if (!res.body.hasNextPage) return seen;
  }
}

describe('paging a list whose order column repeats', () => {
  it('lists each of the tables sharing one number once, whatever the page size', async () => {
    const areas = ['01', '02', '03'];
    const tables = Array.from({ length: 60 }, (_, i) => ({ idmesa: 'D1', idarearestaurant: areas[i % 3]!, personas: i + 1, estatus_ocupacion: 0 }));
    await db().insertInto('mesas').values(tables).execute();
    const expected = tables.map((t) => `${t.idarearestaurant}/${t.personas}`).sort();
    for (const size of SIZES) {
      const seen = await pageThrough(`/estaciones/${BRANCH}?search=D1`, size, (s) => `${String(s.idArea)}/${String(s.personas)}`);
      expect([...seen].sort(), `pageSize=${size}`).toEqual(expected);
    }
  });

  it('lists each of the shifts sharing one number once, whatever the page size', async () => {
    const pos = stack().agents.get(BRANCH)!.pos;
    const first = new Date(2020, 0, 1, 8).getTime();
    const shifts = Array.from({ length: 60 }, (_, i) =>
      pos.schema.completeRow('turnos', {
        idturno: 777,
        apertura: new Date(first + i * 3_600_000),
        cierre: new Date(first + i * 3_600_000 + 1_800_000),
        idestacion: 'CAJA1',
        cajero: 'CAJERO',
        idempresa: '0000000001',
        idmesero: '',
      }),
    );
    await db().insertInto('turnos').values(shifts).execute();
    const expected = shifts.map((s) => new Date(s.apertura as Date).getTime()).sort();
    for (const size of SIZES) {
      const seen = await pageThrough(`/turnos/${BRANCH}?search=777`, size, (s) => String(new Date(String(s.apertura)).getTime()));
      expect(seen.map(Number).sort(), `pageSize=${size}`).toEqual(expected);
    }
  });
});
