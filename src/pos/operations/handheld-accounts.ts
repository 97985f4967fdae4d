/**
 * Soft Restaurant's copy of open accounts for its handheld devices (Soft Restaurant Móvil):
 * `cuentas` per account and `detallescuentas` per line, kept only when devices are registered
 * (`registro_dispositivos` has rows, order-lifecycle rows 94-96 and 208-220). SR keys the lines
 * by table (`clavemesa`, rows 209, 218, 551), and the header by folio; a paid account leaves
 * both (rows 551-552), so a quick sale, paid at once, never has them.
 */
import type { Decimal } from 'decimal.js';
import { insertRows } from '../bulk-insert.js';
import { readOnce, type PosContext } from '../context.js';
import type { HeaderTotals } from '../totals.js';

/** Whether this branch registered handheld devices (and has the tables for them). */
export function handheldDevicesInUse(ctx: PosContext): Promise<boolean> {
  const { schema } = ctx;
  if (!schema.hasTable('registro_dispositivos') || !schema.hasTable('cuentas') || !schema.hasTable('detallescuentas')) return Promise.resolve(false);
  return readOnce(ctx, 'handheld-devices', async () => {
    const row = await ctx.db
      .selectFrom('registro_dispositivos')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n) > 0;
  });
}

/**
 * Whether an open account gets the devices' copy: when devices are registered and the account
 * has a table. SR keys the lines by table; an account without one would put its lines under
 * `clavemesa` '' with every other such account's, where a device would show them all as one
 * (the traces show SR's copy for a table account only, row 96).
 */
export async function keepsHandheldCopy(ctx: PosContext, mesa: string): Promise<boolean> {
  return mesa.trim() !== '' && (await handheldDevicesInUse(ctx));
}

export interface HandheldAccount {
  folio: number;
  mesa: string;
  idmesero: string;
  noPersonas: number;
  area: string;
  estacion: string;
  tipoDeServicio: number;
}

/** The account's header for the devices (order-lifecycle row 96), its totals 0 as SR's next statement leaves them (127). */
export async function openHandheldAccount(ctx: PosContext, a: HandheldAccount): Promise<void> {
  await ctx.db
    .insertInto('cuentas')
    .values(
      ctx.schema.completeRow('cuentas', {
        clavemesa: a.mesa,
        clavemesero: a.idmesero,
        numeropersonas: a.noPersonas,
        clavearea: a.area,
        estacion: a.estacion,
        imprimir: false,
        tiposervicio: a.tipoDeServicio,
        enviadosr: true,
        foliocuenta: a.folio,
        idmesa: '',
        total: 0,
        subtotal: 0,
        totalimpuesto1: 0,
        descuentoimporte: 0,
      }),
    )
    .execute();
}

/** What the devices' table keeps of a line just written to the account. */
export interface HandheldLine {
  idproducto: string;
  descripcion: string;
  precio: Decimal;
  cantidad: Decimal;
  comentario: string;
  modificador: boolean;
  movimiento: number;
  idproductocompuesto: string;
  productocompuestoprincipal: boolean;
}

/** The lines just written, for the devices (order-lifecycle rows 209-220): `idcomanda` numbers each sending at the table. */
export async function addHandheldLines(
  ctx: PosContext,
  account: { mesa: string; estacion: string; idmesero: string },
  lines: readonly HandheldLine[],
): Promise<void> {
  const last = await ctx.db
    .selectFrom('detallescuentas')
    .select((eb) => eb.fn.max('idcomanda').as('n'))
    .where('clavemesa', '=', account.mesa)
    .executeTakeFirst();
  const idcomanda = Number(last?.n ?? 0) + 1;
  await insertRows(
    ctx.db,
    'detallescuentas',
    lines.map((l) =>
      ctx.schema.completeRow('detallescuentas', {
        clavemesa: account.mesa,
        clave: l.idproducto,
        descripcion: l.descripcion,
        precio: l.precio.toFixed(4),
        cantidad: l.cantidad.toFixed(),
        comentario: l.comentario,
        modificador: l.modificador,
        estacion: account.estacion,
        enviadosr: true,
        descuento: 0,
        movimiento: l.movimiento,
        tiempo: '',
        hora: ctx.now,
        idproductocompuesto: l.idproductocompuesto,
        productocompuestoprincipal: l.productocompuestoprincipal,
        nivel: 0,
        comanda: '',
        idcomanda,
        idmesero: account.idmesero,
      }),
    ),
  );
}

/** The devices' copy of the totals (order-lifecycle row 272), as decimal text like the header's. */
export async function updateHandheldTotals(ctx: PosContext, folio: number, header: HeaderTotals): Promise<void> {
  const { total, subtotal, totalimpuesto1, descuentoimporte } = header;
  await ctx.db.updateTable('cuentas').set({ total, subtotal, totalimpuesto1, descuentoimporte }).where('foliocuenta', '=', folio).execute();
}

/** Cancelled lines leave the devices' copy, and the rest take their new numbers. */
export async function renumberHandheldLines(ctx: PosContext, mesa: string, renumbering: ReadonlyArray<{ from: number; to: number | null }>): Promise<void> {
  const gone = renumbering.filter((r) => r.to === null).map((r) => r.from);
  if (gone.length > 0) await ctx.db.deleteFrom('detallescuentas').where('clavemesa', '=', mesa).where('movimiento', 'in', gone).execute();
  for (const r of renumbering) {
    if (r.to === null || r.to === r.from) continue;
    await ctx.db.updateTable('detallescuentas').set({ movimiento: r.to }).where('clavemesa', '=', mesa).where('movimiento', '=', r.from).execute();
  }
}
