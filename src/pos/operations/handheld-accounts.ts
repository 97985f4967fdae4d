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
import { DINE_IN } from '../tables.js';
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

/** What decides whether an account has the devices' copy. */
export interface HandheldKey {
  mesa: string;
  tipodeservicio: number;
}

/**
 * Whether the account owns its table's lines on the devices: a dine-in account at a table. SR
 * keys the lines by table; an account without one would put its lines under `clavemesa` '' with
 * every other such account's (the traces show SR's copy for a table account only, row 96). One
 * of another service may name a table a dine-in account holds (SR's one-account rule, rows 87
 * and 90, is for dine-in): its lines there would be mixed with, renumbered and deleted by the
 * dine-in account's writes, and its own would delete the dine-in account's lines.
 */
function ownsTableLines(account: HandheldKey): boolean {
  return account.tipodeservicio === DINE_IN && account.mesa.trim() !== '';
}

/** Whether an open account gets the devices' copy: when devices are registered and it owns its table's lines. */
export async function keepsHandheldCopy(ctx: PosContext, account: HandheldKey): Promise<boolean> {
  return ownsTableLines(account) && (await handheldDevicesInUse(ctx));
}

/**
 * A paid or cancelled account leaves the devices' copy (rows 550-552): its header by folio and
 * its table's lines, which only an account that owns them may delete.
 */
export async function dropHandheldCopy(ctx: PosContext, account: HandheldKey & { folio: number }): Promise<void> {
  if (!(await handheldDevicesInUse(ctx))) return;
  if (ownsTableLines(account)) await ctx.db.deleteFrom('detallescuentas').where('clavemesa', '=', account.mesa).execute();
  await ctx.db.deleteFrom('cuentas').where('foliocuenta', '=', account.folio).execute();
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
