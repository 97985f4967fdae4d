/**
 * Discounts on an open account through the whole path, each asserting the database afterwards:
 * the general discount and the discount per line, with the limits of their discount types.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { accountSuite, refresco, tacos } from '../support/accounts.js';
import { SR10 } from '../support/schema-variant.js';
import { STRICT_BRANCH } from '../support/stack.js';

const { db, write, openOrder, header, lines } = accountSuite();

describe('general discount', () => {
  let folio: number;
  beforeEach(async () => {
    folio = await openOrder([tacos, refresco].map((p, i) => ({ ...p, movimiento: i + 1 })));
  });
  const original = { total: 267.7, subtotal: 230.78, totalImpuesto1: 36.92, descuento: 0, descuentoImporte: 0 };

  it('a percentage discounts every line proportionally', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, {
      modo: 'porcentaje',
      valor: 10,
      idTipoDescuento: 'EMP',
      comentario: 'Empleado del mes',
      usuario: 'ADMIN',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ folio, itemsAfectados: 0, forzarDescuento: false });
    expect(res.body.totales).toMatchObject({ descuento: 10, total: 240.93, subtotal: 230.78, descuentoImporte: 23.08, subtotalConDescuento: 207.7 });
    expect(await header(folio)).toMatchObject({
      descuento: '10.0000',
      desc_porc_original: '10.0000',
      desc_imp_original: null,
      idtipodescuento: 'EMP',
      usuariodescuento: 'ADMIN',
      comentariodescuento: 'Empleado del mes',
      total: '240.9300',
    });
  });

  it('marks the account for Soft Restaurant to process the discount (seed rule 5), removing it too', async () => {
    expect((await header(folio)).procesar_descuento_sr).toBe(false);
    expect((await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 5 })).status).toBe(200);
    expect((await header(folio)).procesar_descuento_sr).toBe(true);
    await db().updateTable('tempcheques').set({ procesar_descuento_sr: false }).where('folio', '=', folio).execute();
    expect((await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 0 })).status).toBe(200);
    expect((await header(folio)).procesar_descuento_sr).toBe(true);
  });

  it('an amount on the subtotal lowers the pre-tax subtotal by that amount', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'importe', valor: 50 });
    expect(res.body.totales.subtotalConDescuento).toBeCloseTo(230.78 - 50, 2);
    expect(Math.abs(res.body.totales.descuentoImporte - 50)).toBeLessThanOrEqual(0.01);
    expect((await header(folio)).desc_imp_original).toBe('50.0000');
  });

  it('an amount on the total lowers the total by that amount', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'importe', base: 'total', valor: 67.7 });
    expect(Math.abs(res.body.totales.total - 200)).toBeLessThanOrEqual(0.01);
  });

  it('replaces instead of accumulating, and 0 restores every total', async () => {
    await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 20 });
    const second = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 5 });
    expect(second.body.totales.descuento).toBe(5);
    const cleared = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 0 });
    expect(cleared.body.totales).toMatchObject(original);
    expect(await header(folio)).toMatchObject({ descuento: '0.0000', idtipodescuento: '', desc_porc_original: '0.0000', total: '267.7000' });
  });

  it('100 % is a courtesy', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 100 });
    expect(res.body.totales).toMatchObject({ total: 0, descuentoImporte: 0, totalCortesias: 230.78 });
  });

  it.each<[Record<string, unknown>, number, string]>([
    [{ modo: 'importe', valor: 230.79 }, 422, 'discount_exceeds_base'],
    [{ modo: 'importe', base: 'total', valor: 267.71 }, 422, 'discount_exceeds_base'],
    ...(SR10
      ? []
      : ([[{ modo: 'porcentaje', valor: 15, idTipoDescuento: 'EMP' }, 422, 'discount_exceeds_maximum']] as Array<[Record<string, unknown>, number, string]>)),
    [{ modo: 'porcentaje', valor: 15, idTipoDescuento: 'XYZ' }, 422, 'discount_type_not_found'],
    [{ modo: 'porcentaje', valor: 101 }, 400, 'validation_failed'],
    [{ modo: 'porcentaje', valor: 5, usuario: 'NADIE' }, 422, 'user_not_found'],
  ])('refuses %j with %i %s and changes nothing', async (body, status, code) => {
    const before = await header(folio);
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, body);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(await header(folio)).toEqual(before);
  });

  it('SR 10 has no discount maximum columns: no type limits the percentage there', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 15, idTipoDescuento: 'EMP' });
    expect(res.status).toBe(SR10 ? 200 : 422);
  });

  it('LIB has no ceiling', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 60, idTipoDescuento: 'LIB' });
    expect(res.status).toBe(200);
  });

  it('a branch that forces a discount type refuses a discount without one, but allows removing it', async () => {
    const strictFolio = await openOrder([tacos], {}, STRICT_BRANCH);
    const res = await write(`/temp_ordenes/{lk}/${strictFolio}/descuento`, { modo: 'porcentaje', valor: 5 }, { branch: STRICT_BRANCH });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('discount_type_required');
    const typed = await write(
      `/temp_ordenes/{lk}/${strictFolio}/descuento`,
      { modo: 'porcentaje', valor: 5, idTipoDescuento: 'LIB' },
      { branch: STRICT_BRANCH },
    );
    expect(typed.status).toBe(200);
    // forzarDescuento is parametros3.forzardescuento (off here), not the forced discount type.
    expect(typed.body.forzarDescuento).toBe(false);
    const removed = await write(`/temp_ordenes/{lk}/${strictFolio}/descuento`, { modo: 'porcentaje', valor: 0 }, { branch: STRICT_BRANCH });
    expect(removed.status).toBe(200);
  });

  it('answers forzarDescuento as parametros3.forzardescuento is, and never blocks on it (seed)', async () => {
    await db().updateTable('parametros3').set({ forzardescuento: true }).execute();
    try {
      const general = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 5 });
      expect(general.status).toBe(200);
      expect(general.body.forzarDescuento).toBe(true);
      const perLine = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
        productos: [{ movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 10 }],
      });
      expect(perLine.status).toBe(200);
      expect(perLine.body.forzarDescuento).toBe(true);
      expect(await header(folio)).toMatchObject({ descuento: '5.0000', idtipodescuento: '' });
    } finally {
      await db().updateTable('parametros3').set({ forzardescuento: false }).execute();
    }
  });
});

describe('discount per line', () => {
  it('percentages and per-unit amounts on chosen lines; 100 % is a courtesy', async () => {
    const folio = await openOrder([tacos, refresco, { movimiento: 3, idProducto: '4001', cantidad: 1 }].map((p, i) => ({ ...p, movimiento: i + 1 })));
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
      idTipoDescuento: 'LIB',
      comentario: 'Promoción',
      productos: [
        { movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 50 },
        { movimiento: 2, idProducto: '1005', modo: 'importe', base: 'total', valor: 9.9 },
        { movimiento: 3, idProducto: '4001', modo: 'importe', base: 'total', valor: 55 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.itemsAfectados).toBe(3);
    // 89 + 3 × 20.00 + 0 = 149.00
    expect(res.body.totales).toMatchObject({ total: 149, totalCortesias: 47.41 });
    const l = await lines(folio);
    // SR 10 stores line discounts as numeric(6,2): the percentage is rounded to what it keeps.
    expect(l.map((x) => [x.descuento, x.idtipodescuento, x.comentariodescuento])).toEqual(
      SR10
        ? [
            ['50.00', 'LIB', 'Promoción'],
            ['33.11', 'LIB', 'Promoción'],
            ['100.00', 'LIB', 'Promoción'],
          ]
        : [
            ['50.0000', 'LIB', 'Promoción'],
            ['33.1104', 'LIB', 'Promoción'],
            ['100.0000', 'LIB', 'Promoción'],
          ],
    );
    // Seed rule 10: an audit entry.
    const event = await db().selectFrom('bitacorasistema').selectAll().orderBy('bitacorasistemaid', 'desc').executeTakeFirstOrThrow();
    expect(event).toMatchObject({ evento: 'Comedor - Descuento de productos', usuario: 'API', estacion: 'CAJA1', idempresa: '0000000001' });
    expect(event.valores).toBe(
      `Cuenta: , Folio: ${folio}, Productos: 1 3001 50%, 2 1005 ${SR10 ? '33.11' : '33.1104'}%, 3 4001 100%, Tipo: LIB, Comentario: Promoción`,
    );
    const cleared = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
      productos: [{ movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 0 }],
    });
    expect((await lines(folio))[0]).toMatchObject({ descuento: SR10 ? '0.00' : '0.0000', idtipodescuento: '' });
    expect(cleared.body.totales.total).toBe(238);
  });

  it('refuses an amount above the unit price and a missing line, changing nothing', async () => {
    const folio = await openOrder([tacos]);
    const before = await lines(folio);
    const above = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
      productos: [{ movimiento: 1, idProducto: '3001', modo: 'importe', base: 'total', valor: 89.01 }],
    });
    expect(above.body.code).toBe('discount_exceeds_base');
    const missing = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
      productos: [
        { movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 10 },
        { movimiento: 9, idProducto: '3001', modo: 'porcentaje', valor: 10 },
      ],
    });
    expect(missing.status).toBe(422);
    expect(missing.body.code).toBe('line_not_found');
    expect(await lines(folio)).toEqual(before);
  });

  it('refuses a line named twice, in a discount or a cancellation, changing nothing', async () => {
    const folio = await openOrder([tacos, { ...refresco, movimiento: 2 }]);
    const before = await lines(folio);
    const twice = [
      [`/temp_ordenes/{lk}/${folio}/descuento_productos`, { modo: 'porcentaje', valor: 10 }, { modo: 'porcentaje', valor: 50 }],
      [`/temp_ordenes/{lk}/${folio}/cancelar_productos`, {}, {}],
    ] as const;
    for (const [path, first, second] of twice) {
      const res = await write(path, {
        productos: [
          { movimiento: 1, idProducto: '3001', ...first },
          { movimiento: 2, idProducto: '1005', ...first },
          { movimiento: 1, idProducto: '3001', ...second },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        errors: [{ path: 'body.productos.2.movimiento', message: 'names the same line as productos.0' }],
      });
    }
    expect(await lines(folio)).toEqual(before);
  });

  it('respects the ceiling of the discount type where the installation has one', async () => {
    const folio = await openOrder([tacos]);
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
      idTipoDescuento: 'EMP',
      productos: [{ movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 10.01 }],
    });
    if (SR10) expect(res.status).toBe(200);
    else expect(res.body.code).toBe('discount_exceeds_maximum');
  });
});
