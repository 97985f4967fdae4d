/**
 * The demo history seedHistory writes, read back through the order reads.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBranch } from '../../src/demo/seed.js';
import * as ops from '../../src/protocol/operations/orders-read.js';
import type { PosContext } from '../../src/pos/context.js';
import { type PosDb } from '../../src/pos/schema.js';
import { listClosedOrders, listDayOrders, listOpenOrders } from '../../src/pos/operations/orders-read.js';
import { readPosSchema } from '../../src/pos/runtime.js';
import { newPosDatabase, openPosDb } from '../support/databases.js';

describe('demo history (seedHistory)', () => {
  let db: PosDb;
  let close: () => Promise<void>;
  let ctx: PosContext;
  const now = new Date();

  beforeAll(async () => {
    const pos = await openPosDb(await newPosDatabase('empty'));
    db = pos.db;
    close = pos.close;
    const schema = await readPosSchema(db, pos.dialect);
    await seedBranch(db, schema, { name: 'Sucursal Historia', forceCancelReason: false, forceDiscountType: false, now });
    ctx = { db, dialect: pos.dialect, schema, log: pino({ level: 'silent' }), now };
  });

  afterAll(async () => {
    await close?.();
  });

  it('closes shift 1 earlier and keeps the open shift on CAJA1 as number 2', async () => {
    const shifts = await db
      .selectFrom('turnos')
      .select(['idturno', 'idestacion', 'apertura', 'cierre', 'efectivo', 'tarjeta', 'vales', 'credito'])
      .orderBy('idturno')
      .execute();
    expect(shifts.map((s) => [Number(s.idturno), s.idestacion, s.cierre === null])).toEqual([
      [1, 'CAJA1', false],
      [2, 'CAJA1', true],
    ]);
    expect(shifts[0]!.cierre!.getTime()).toBeLessThanOrEqual(shifts[1]!.apertura!.getTime());
    const settings = await db.selectFrom('parametros').select('ultimoturno').executeTakeFirstOrThrow();
    expect(Number(settings.ultimoturno)).toBe(2);

    const closed = await listClosedOrders.run(ctx, ops.listClosedOrders.input.parse({}));
    const paid = closed.data.flatMap((o) => o.pagos).reduce((sum, p) => sum + Math.round(p.importe * 100), 0);
    const buckets = ['efectivo', 'tarjeta', 'vales', 'credito'] as const;
    expect(buckets.reduce((sum, b) => sum + Math.round(Number(shifts[0]![b]) * 100), 0)).toBe(paid);
  });

  it('has three closed orders of shift 1, printed, paid in full, one invoiced', async () => {
    const closed = await listClosedOrders.run(ctx, ops.listClosedOrders.input.parse({}));
    expect(closed.totalResults).toBe(3);
    expect(closed.data.map((o) => [o.numcheque, o.idTurno, o.pagado, o.impreso, o.cancelado])).toEqual([
      [998, 1, true, true, false],
      [999, 1, true, true, false],
      [1000, 1, true, true, false],
    ]);
    for (const order of closed.data) {
      expect(order.productos.length).toBeGreaterThan(0);
      expect(order.pagos.reduce((sum, p) => sum + Math.round(p.importe * 100), 0)).toBe(Math.round(order.totales.total * 100));
    }
    expect(closed.data.filter((o) => o.facturado)).toHaveLength(1);
  });

  it('links the invoiced order to a CFDI 4.0 with its totals', async () => {
    const closed = await listClosedOrders.run(ctx, ops.listClosedOrders.input.parse({ facturado: true }));
    const [order] = closed.data;
    const link = await db.selectFrom('foliosfacturados').select(['idfactura', 'folio']).execute();
    expect(link.map((l) => Number(l.folio))).toEqual([order!.folio]);
    const invoice = await db
      .selectFrom('facturas')
      .select(['idfactura', 'femexxmlvalido', 'total', 'idempresa'])
      .where('idfactura', '=', link[0]!.idfactura)
      .executeTakeFirstOrThrow();
    expect(invoice.idempresa).toBe('0000000001');
    const xml = invoice.femexxmlvalido!;
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<cfdi:Comprobante /);
    expect(xml).toContain('Version="4.0"');
    expect(xml).toContain(`Total="${order!.totales.total.toFixed(2)}"`);
    expect(xml).toContain(`TotalImpuestosTrasladados="${order!.totales.totalImpuesto1.toFixed(2)}"`);
    expect(xml).toContain(`SubTotal="${order!.totales.subtotalConDescuento.toFixed(2)}"`);
    expect(xml.match(/<(\/?)cfdi:Comprobante/g)).toEqual(['<cfdi:Comprobante', '</cfdi:Comprobante']);
  });

  it("lists today's two open accounts and the one paid in the open shift on CAJA1, none named by a closed order", async () => {
    const open = await listOpenOrders.run(ctx, {});
    expect(open.data.map((o) => [o.estacion, o.orden, o.idTurno, o.pagado, o.productos.length > 0])).toEqual([
      ['CAJA1', 1, 0, false, true],
      ['CAJA1', 2, 0, false, true],
      ['CAJA1', 3, 2, true, true],
    ]);
    const closed = await listClosedOrders.run(ctx, ops.listClosedOrders.input.parse({}));
    const names = new Set(closed.data.map((o) => o.folioTemporal));
    expect(open.data.filter((o) => names.has(o.folio))).toEqual([]);
    const folio = await db.selectFrom('folios').select(['ultimaorden', 'ultimofolio']).where('serie', '=', 'A').executeTakeFirstOrThrow();
    expect([Number(folio.ultimaorden), Number(folio.ultimofolio)]).toEqual([3, 1001]);
  });

  it('puts the night shift and its 03:00 sale in the operational day before, outside today', async () => {
    const day = await listDayOrders.run(ctx, ops.listDayOrders.input.parse({}));
    // The day lists by opening time; which accounts, not their order, is the point here.
    expect(day.data.map((o) => [o.origen, o.idTurno]).sort(([, a], [, b]) => Number(a) - Number(b))).toEqual([
      ['temporal', 0],
      ['temporal', 0],
      ['temporal', 2],
    ]);
    const closed = await listClosedOrders.run(ctx, ops.listClosedOrders.input.parse({}));
    const night = closed.data.find((o) => o.numcheque === 1000)!;
    expect(night.fecha).toMatch(/T03:00:00/);
  });
});
