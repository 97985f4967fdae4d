/**
 * Changing the lines of an open account through the whole path, each asserting the database
 * afterwards: add lines, cancel lines, and the open-account rule every change obeys.
 */
import { describe, expect, it } from 'vitest';
import { accountSuite, refresco, sinCebolla, tacos } from '../support/accounts.js';
import { STRICT_BRANCH } from '../support/stack.js';

const { db, strictDb, write, openOrder, header, lines, counts } = accountSuite();

describe('add lines', () => {
  it('continues the numbering, keeps modifiers after their base and returns numbers in the order sent', async () => {
    const folio = await openOrder([tacos, { ...refresco, movimiento: 2 }]);
    const before = await counts();
    const res = await write(`/temp_ordenes/{lk}/${folio}/productos`, {
      productos: [
        { movimiento: 1, idProducto: '3005', cantidad: 1 },
        { movimiento: 2, idProducto: '9004', cantidad: 1, modificador: true },
        { movimiento: 3, idProducto: '1101', cantidad: 2 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ folio, itemsAgregados: 3, movimientos: [3, 4, 5] });
    expect(res.body.totales.total).toBe(666.7);
    const l = await lines(folio);
    expect(l.map((x) => [Number(x.movimiento), x.idproducto, x.modificador])).toEqual([
      [1, '3001', false],
      [2, '1005', false],
      [3, '3005', false],
      [4, '9004', true],
      [5, '1101', false],
    ]);
    expect((await header(folio)).total).toBe('666.7000');
    // Seed rule 5: only the temporary account; no sale (no payment, no check number) and no print.
    expect(await header(folio)).toMatchObject({ pagado: false, impreso: false, impresiones: 0, numcheque: 0 });
    expect(await counts()).toMatchObject({ tempcheques: before.tempcheques, tempchequespagos: before.tempchequespagos, folios: before.folios });
  });

  it('keeps the general discount and applies it to the new subtotal', async () => {
    const folio = await openOrder([{ movimiento: 1, idProducto: '3002', cantidad: 1 }]);
    expect((await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 10 })).status).toBe(200);
    const res = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [{ movimiento: 1, idProducto: '3002', cantidad: 1 }] });
    expect(res.body.totales).toMatchObject({ descuento: 10, total: 243 });
    expect((await header(folio)).descuento).toBe('10.0000');
  });

  it('refuses a missing product without writing anything', async () => {
    const folio = await openOrder([tacos]);
    const before = await counts();
    const res = await write(`/temp_ordenes/{lk}/${folio}/productos`, {
      productos: [refresco, { movimiento: 2, idProducto: 'NOPE', cantidad: 1 }].map((p, i) => ({ ...p, movimiento: i + 1 })),
    });
    expect(res.status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it('404 account_not_found for a folio that does not exist; 400 for a folio that is not a number', async () => {
    expect((await write('/temp_ordenes/{lk}/999999/productos', { productos: [tacos] })).body.code).toBe('account_not_found');
    const bad = await write('/temp_ordenes/{lk}/abc/productos', { productos: [tacos] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('params.folio');
  });
});

/** One request of each write on an open account (add, cancel, both discounts) for an account holding tacos. */
function changesOf(folio: number): Array<[string, Record<string, unknown>]> {
  return [
    [`/temp_ordenes/{lk}/${folio}/productos`, { productos: [refresco].map((p) => ({ ...p, movimiento: 1 })) }],
    [`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '3001' }] }],
    [`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 5 }],
    [`/temp_ordenes/{lk}/${folio}/descuento_productos`, { productos: [{ movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 5 }] }],
  ];
}

describe('the open-account rule', () => {
  it('a printed account that SR reopened takes changes again', async () => {
    const folio = await openOrder([tacos]);
    // SR's reopening clears the printed flag and counts the reopening.
    await db().updateTable('tempcheques').set({ impreso: false, reabiertas: 1, numcheque: 4242 }).where('folio', '=', folio).execute();
    const res = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [{ ...refresco, movimiento: 1 }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it.each([
    [{ pagado: true }, 'paid'],
    [{ cancelado: true }, 'cancelled'],
    [{ cuentaenuso: true }, 'in_use'],
    [{ impreso: true }, 'printed'],
  ])('409 account_not_open when %j, saying which, and nothing changes', async (state, which) => {
    const folio = await openOrder([tacos]);
    await db().updateTable('tempcheques').set(state).where('folio', '=', folio).execute();
    const before = await counts();
    for (const [path, body] of changesOf(folio)) {
      const res = await write(path, body);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'account_not_open', state: which });
      expect(res.body.detail).toMatch(new RegExp(`${which === 'in_use' ? 'in use' : which === 'paid' ? 'paid' : which}`));
    }
    expect(await counts()).toEqual(before);
  });

  it('422 user_not_found for a usuario not in the users catalog, on both discounts, add and cancel, and nothing changes (seed errors)', async () => {
    const folio = await openOrder([tacos]);
    const before = await counts();
    for (const [path, body] of changesOf(folio)) {
      const res = await write(path, { ...body, usuario: 'NADIE' });
      expect(res.status, path).toBe(422);
      expect(res.body.code).toBe('user_not_found');
    }
    expect(await counts()).toEqual(before);
  });
});

describe('cancel lines', () => {
  it('removes the lines and their modifiers, renumbers survivors, and records the cancellation', async () => {
    const folio = await openOrder(
      [
        tacos,
        sinCebolla,
        { movimiento: 3, idProducto: '9003', cantidad: 1, modificador: true },
        { ...refresco, movimiento: 4 },
        { movimiento: 5, idProducto: '4001', cantidad: 1 },
      ],
      { mesa: '4' },
    );
    const bitacora = await counts();
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, {
      productos: [{ movimiento: 1, idProducto: '3001' }],
      razon: 'El cliente cambió de opinión',
      usuario: 'CAJERO',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ folio, itemsCancelados: 3, movimientos: [1, 2, 3] });
    expect(res.body.totales.total).toBe(144.7);

    const l = await lines(folio);
    expect(l.map((x) => [Number(x.movimiento), x.idproducto])).toEqual([
      [1, '1005'],
      [2, '4001'],
    ]);
    const cancelled = await db().selectFrom('tempcancela').selectAll().where('foliocheque', '=', folio).orderBy('clave').execute();
    expect(cancelled.map((c) => [c.clave, c.cantidad, c.precio, c.razon, c.usuario])).toEqual([
      ['3001', '2.000', '89.0000', 'El cliente cambió de opinión Mesa: 4', 'CAJERO'],
      ['9001', '1.000', '0.0000', 'El cliente cambió de opinión Mesa: 4', 'CAJERO'],
      ['9003', '1.000', '0.0000', 'El cliente cambió de opinión Mesa: 4', 'CAJERO'],
    ]);
    const queue = await db()
      .selectFrom('productosenproduccion')
      .select(['movimiento', 'idproducto', 'cancelado'])
      .where('folio', '=', folio)
      .orderBy('idproducto')
      .execute();
    // The survivors take their new numbers; the cancelled rows stay on the monitor at 0, a
    // number no line has, so no address of a live line is also a cancelled row's.
    expect(queue.map((q) => [q.idproducto, Number(q.movimiento), q.cancelado === true])).toEqual([
      ['1005', 1, false],
      ['3001', 0, true],
      ['4001', 2, false],
      ['9001', 0, true],
      ['9003', 0, true],
    ]);
    expect((await counts()).bitacorasistema).toBe(bitacora.bitacorasistema + 1);
    const event = await db().selectFrom('bitacorasistema').selectAll().orderBy('bitacorasistemaid', 'desc').executeTakeFirstOrThrow();
    expect(event).toMatchObject({ evento: 'Comedor - Cancelación de productos', usuario: 'CAJERO', estacion: 'CAJA1' });
    expect(event.valores).toMatch(/^Cuenta: 4, /);
    expect((await header(folio)).total).toBe('144.7000');
  });

  it('names lines as they are now: two cancellations of line 1, each under its own key, cancel two lines', async () => {
    const folio = await openOrder([tacos, { ...tacos, movimiento: 2 }], { mesa: '' });
    const cancelFirst = () =>
      write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '3001' }], razon: 'repetido' });
    expect((await cancelFirst()).status).toBe(200);
    expect((await lines(folio)).map((x) => [Number(x.movimiento), x.idproducto])).toEqual([[1, '3001']]);
    expect((await cancelFirst()).status).toBe(200);
    expect(await lines(folio)).toEqual([]);
  });

  it('stores the reason alone for a sale without a table (seed rule 1)', async () => {
    const folio = await openOrder([tacos, { ...refresco, movimiento: 2 }], { mesa: '' });
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, {
      productos: [{ movimiento: 2, idProducto: '1005' }],
      razon: 'ERROR DE CAPTURA',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const cancelled = await db().selectFrom('tempcancela').select(['razon', 'idmotivocancela']).where('foliocheque', '=', folio).execute();
    // A suggested reason is only text: no key of the reason catalogue goes with it (seed).
    expect(cancelled.map((c) => [c.razon, c.idmotivocancela])).toEqual([['ERROR DE CAPTURA', '']]);
  });

  it('cancelling every line leaves the account open and empty with zero totals, not cancelled (seed rule 10)', async () => {
    const folio = await openOrder([tacos, sinCebolla, { ...refresco, movimiento: 3 }], { mesa: '5' });
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, {
      productos: [
        { movimiento: 1, idProducto: '3001' },
        { movimiento: 3, idProducto: '1005' },
      ],
      razon: 'SERVICIO LENTO',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ itemsCancelados: 3, movimientos: [1, 2, 3] });
    expect(res.body.totales).toMatchObject({ subtotal: 0, total: 0, totalImpuesto1: 0, totalArticulos: 0 });
    expect(await lines(folio)).toEqual([]);
    expect(await header(folio)).toMatchObject({ cancelado: false, pagado: false, total: '0.0000' });
    const more = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [tacos] });
    expect(more.status).toBe(200);
  });

  it('cuts a long reason, never the table after it, to the width of tempcancela.razon (seed rule 1)', async () => {
    const stored = async (mesa: string, razon: string) => {
      const folio = await openOrder([tacos], { mesa });
      const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '3001' }], razon });
      expect(res.status).toBe(200);
      const [row] = await db().selectFrom('tempcancela').select('razon').where('foliocheque', '=', folio).execute();
      return row!.razon;
    };
    const razon = `${'x'.repeat(150)}${'y'.repeat(50)}`;
    // 100 characters: the first 91 of the reason, then " Mesa: T2".
    expect(await stored('T2', razon)).toBe(`${'x'.repeat(91)} Mesa: T2`);
    expect(await stored('6', 'x'.repeat(101))).toBe(`${'x'.repeat(92)} Mesa: 6`);
    expect(await stored('', razon)).toBe('x'.repeat(100));
  });

  it('rejects the whole request when one line does not exist, changing nothing', async () => {
    const folio = await openOrder([tacos, refresco].map((p, i) => ({ ...p, movimiento: i + 1 })));
    const before = await counts();
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, {
      productos: [
        { movimiento: 1, idProducto: '3001' },
        { movimiento: 2, idProducto: '3001' },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('line_not_found');
    expect(res.body.fields).toEqual(['productos.1']);
    expect(await counts()).toEqual(before);
    expect(await lines(folio)).toHaveLength(2);
  });

  it('a branch that forces a reason refuses an empty one', async () => {
    const folio = await openOrder([tacos], {}, STRICT_BRANCH);
    const before = await counts(strictDb());
    const res = await write(
      `/temp_ordenes/{lk}/${folio}/cancelar_productos`,
      { productos: [{ movimiento: 1, idProducto: '3001' }], razon: '  ' },
      { branch: STRICT_BRANCH },
    );
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('reason_required');
    expect(await counts(strictDb())).toEqual(before);
    const ok = await write(
      `/temp_ordenes/{lk}/${folio}/cancelar_productos`,
      { productos: [{ movimiento: 1, idProducto: '3001' }], razon: 'Error de captura' },
      { branch: STRICT_BRANCH },
    );
    expect(ok.status).toBe(200);
  });

  it('400 for a reason over 200 characters', async () => {
    const res = await write('/temp_ordenes/{lk}/1/cancelar_productos', { productos: [{ movimiento: 1, idProducto: '3001' }], razon: 'x'.repeat(201) });
    expect(res.status).toBe(400);
  });
});
