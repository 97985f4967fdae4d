/**
 * Soft Restaurant's SQL Server databases compare keys case-insensitively. Here the branch's key
 * columns get a case-insensitive ICU collation, so PostgreSQL matches `taco-ci` to `TACO-CI` as
 * SQL Server would, and the code that reads the matched rows back must match them too: a line
 * is priced, gets its registered modifier price and its kitchen monitor rows, and every id is
 * written as the branch spells it, never as the request did.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { accountSuite } from '../support/accounts.js';
import { orderBody } from '../support/order-body.js';
import { BRANCH } from '../support/stack.js';

const { stack, db, write, openOrder, header, lines } = accountSuite();

const CASE_INSENSITIVE_KEYS = [
  ['productos', 'idproducto'],
  ['productosdetalle', 'idproducto'],
  ['modificadores', 'idproducto'],
  ['modificadores', 'idmodificador'],
  ['productosmonitores', 'idproducto'],
  ['grupos', 'idgrupo'],
  ['mesas', 'idmesa'],
  ['tempcheques', 'mesa'],
  ['folios', 'serie'],
] as const;

/** A copy of a seeded product under a new id, with its prices and monitors (their rows spelling it `monitorsAs`). */
async function copyProduct(from: string, to: string, monitorsAs = to): Promise<void> {
  for (const table of ['productos', 'productosdetalle', 'productosmonitores'] as const) {
    const rows = await db().selectFrom(table).selectAll().where('idproducto', '=', from).execute();
    const copies = rows.map((r) => {
      const { idproductosmonitores: _serial, ...rest } = r as Record<string, unknown>;
      return { ...rest, idproducto: table === 'productosmonitores' ? monitorsAs : to };
    });
    if (copies.length > 0) await db().insertInto(table).values(copies).execute();
  }
}

beforeAll(async () => {
  await sql`create collation if not exists sr_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)`.execute(db());
  for (const [table, column] of CASE_INSENSITIVE_KEYS) {
    const { rows } = await sql<{ width: number }>`select character_maximum_length as width from information_schema.columns
      where table_name = ${table} and column_name = ${column}`.execute(db());
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type ${sql.raw(`varchar(${rows[0]!.width})`)} collate sr_ci`.execute(db());
  }
  await copyProduct('3001', 'TACO-CI');
  await copyProduct('9001', 'SALSA-CI', 'salsa-ci');
  await db().insertInto('modificadores').values({ idproducto: 'taco-ci', idmodificador: 'Salsa-CI', precio: '7.0000', idempresa: '0000000001' }).execute();
});

const taco = { movimiento: 1, idProducto: 'taco-ci', cantidad: 1 };
const salsa = { movimiento: 2, idProducto: 'Salsa-Ci', cantidad: 1, modificador: true };

describe('keys the collation matches in another letter case', () => {
  it('prices the lines, takes the registered modifier price and writes the branch’s spelling', async () => {
    const folio = await openOrder([taco, salsa]);
    expect((await lines(folio)).map((l) => [l.idproducto, l.precio, l.idproductocompuesto])).toEqual([
      ['TACO-CI', expect.any(String), 'TACO-CI'],
      ['SALSA-CI', '7.0000', 'TACO-CI'],
    ]);
    const kitchen = await db()
      .selectFrom('productosenproduccion')
      .select(['idproducto', 'idmonitor'])
      .where('folio', '=', folio)
      .orderBy('movimiento')
      .execute();
    const monitorOf = async (id: string) =>
      (await db().selectFrom('productosmonitores').select('idmonitor').where('idproducto', '=', id).orderBy('idmonitor').execute()).map((m) => ({
        idproducto: id,
        idmonitor: m.idmonitor,
      }));
    const expected = [...(await monitorOf('TACO-CI')), ...(await monitorOf('SALSA-CI'))];
    expect(expected.map((m) => m.idproducto)).toEqual(expect.arrayContaining(['TACO-CI', 'SALSA-CI']));
    expect(kitchen).toEqual(expected);
  });

  it('opens an account at a table and in a series named in another letter case under their own names, once', async () => {
    const area = await db().selectFrom('mesas').select('idarearestaurant').where('idmesa', '=', 'T2').executeTakeFirstOrThrow();
    const folio = await openOrder([taco], { mesa: 't2', tipoDeServicio: 1, serie: 'a' });
    expect(await header(folio)).toMatchObject({ mesa: 'T2', idarearestaurant: area.idarearestaurant, seriefolio: 'A' });
    const again = await write('/temp_ordenes/{lk}', { ...orderBody({ serie: 'A', noPersonas: 2 }), mesa: 'T2', idMesero: '01', tipoDeServicio: 1 });
    expect([again.status, again.body.code]).toEqual([409, 'table_occupied']);
  });

  it('cancels a line named in another letter case', async () => {
    const folio = await openOrder([{ ...taco, idProducto: 'TACO-CI' }]);
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: 'taco-ci' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await lines(folio)).toEqual([]);
  });

  it('writes a product change and its price log under the branch’s ids', async () => {
    const res = await stack().api('PUT', `/productos/${BRANCH}/taco-ci`, {
      headers: { 'idempotency-key': randomUUID() },
      body: {
        idEmpresa: '0000000001',
        descripcionProducto: 'Taco',
        idGrupo: 'pla',
        nombreCorto: 'Taco',
        visibleMenu: true,
        precio: 61.5,
        impuesto1: 16,
        impuesto2: 0,
        impuesto3: 0,
        bloqueado: false,
        permitirprodcompenmodif: false,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ idProducto: 'TACO-CI', idGrupo: 'PLA' });
    const product = await db().selectFrom('productos').select('idgrupo').where('idproducto', '=', 'TACO-CI').executeTakeFirstOrThrow();
    expect(product.idgrupo).toBe('PLA');
    const log = await db().selectFrom('logcambioprecios').select('idproducto').where('idproducto', '=', 'TACO-CI').execute();
    expect(log.map((l) => l.idproducto)).toEqual(['TACO-CI']);
  });
});
