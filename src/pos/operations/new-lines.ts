/**
 * Turning requested lines into `tempcheqdet` rows as Soft Restaurant writes them
 * (order-lifecycle rows 205-230): catalogue price and taxes for the account's company unless
 * sent, a modifier right after its base with the modifier price registered for that base,
 * composite-product marks, real line numbers continuing after the account's last line, one
 * kitchen production number and priority for the lines sent together, and a kitchen queue row
 * (`productosenproduccion`) on each monitor the product is shown on.
 */
import { PosError } from '../../protocol/errors.js';
import type { LineInput } from '../../protocol/operations/orders.js';
import { insertRows } from '../bulk-insert.js';
import type { PosContext } from '../context.js';
import { nextFolioProduccion } from '../counters.js';
import { nextProductionPriority } from '../settings.js';
import { openShiftFor } from '../stations.js';
import { precioSinImpuestos, Dec } from '../totals.js';
import { collationKey, dec, flag, text } from '../values.js';
import { classification, type LineAmounts, type StoredLine } from './account.js';
import { addHandheldLines } from './handheld-accounts.js';

interface Catalogue {
  /** The id as the branch spells it, which is what the line is written with. */
  idproducto: string;
  descripcion: string;
  precio: string;
  impuesto1: string;
  impuesto2: string;
  impuesto3: string;
  clasificacion: StoredLine['clasificacion'];
  bloqueado: boolean;
}

/** A requested line priced from the catalogue, not yet written (its movimiento is assigned then). */
export type PricedLine = StoredLine & { input: LineInput };

export interface AccountRef {
  folio: number;
  idempresa: string;
  estacion: string;
  idmesero: string;
  mesa: string;
  /** The series the account's kitchen production numbers come from. */
  seriefolio: string;
}

/** Validates products (exist, not blocked) and prices every line; nothing is written yet. */
export async function priceLines(ctx: PosContext, idEmpresa: string, inputs: readonly LineInput[]): Promise<PricedLine[]> {
  const ids = [...new Set(inputs.map((l) => l.idProducto))];
  const rows = await ctx.db
    .selectFrom('productos as p')
    .innerJoin('productosdetalle as d', (join) => join.onRef('d.idproducto', '=', 'p.idproducto').on('d.idempresa', '=', idEmpresa))
    .leftJoin('grupos as g', 'g.idgrupo', 'p.idgrupo')
    .select(['p.idproducto', 'p.descripcion', 'd.precio', 'd.impuesto1', 'd.impuesto2', 'd.impuesto3', 'd.bloqueado', 'g.clasificacion'])
    .where('p.idproducto', 'in', ids)
    .execute();
  const catalogue = new Map<string, Catalogue>();
  for (const r of rows) {
    catalogue.set(collationKey(r.idproducto), {
      idproducto: r.idproducto,
      descripcion: text(r.descripcion) ?? '',
      precio: dec(r.precio).toFixed(),
      impuesto1: dec(r.impuesto1).toFixed(),
      impuesto2: dec(r.impuesto2).toFixed(),
      impuesto3: dec(r.impuesto3).toFixed(),
      clasificacion: classification(r.clasificacion),
      bloqueado: flag(r.bloqueado),
    });
  }
  const products = inputs.map((l) => catalogue.get(collationKey(l.idProducto)));
  const fieldsOf = (refuse: (p: Catalogue | undefined) => boolean) => products.flatMap((p, i) => (refuse(p) ? [`productos.${i}.idProducto`] : []));
  const missing = fieldsOf((p) => p === undefined);
  if (missing.length > 0) {
    throw new PosError('product_not_found', `The company's catalogue has no product with the id in ${missing.join(', ')}.`, { fields: missing });
  }
  const refused = fieldsOf((p) => p!.bloqueado);
  if (refused.length > 0) throw new PosError('product_blocked', `The product in ${refused.join(', ')} is blocked.`, { fields: refused });

  const shapes = inputs.map((l, i) => ({ idproducto: products[i]!.idproducto, modificador: l.modificador }));
  const withBase = baseOfEachLine(shapes);
  const unpriced = inputs.flatMap((l, i) => (l.modificador && l.precio === undefined ? [[withBase[i]!, products[i]!.idproducto] as const] : []));
  const modifierPrices = await registeredModifierPrices(ctx, idEmpresa, unpriced);
  return inputs.map((input, i) => {
    const product = products[i]!;
    const registered = input.modificador ? modifierPrices.get(modifierKey(withBase[i]!, product.idproducto)) : undefined;
    return {
      input,
      movimiento: 0,
      idproducto: product.idproducto,
      descripcion: product.descripcion,
      modificador: input.modificador,
      cantidad: new Dec(input.cantidad),
      precio: new Dec(input.precio ?? registered ?? product.precio),
      impuesto1: new Dec(input.impuesto1 ?? product.impuesto1),
      impuesto2: new Dec(input.impuesto2 ?? product.impuesto2),
      impuesto3: new Dec(input.impuesto3 ?? product.impuesto3),
      descuento: new Dec(0),
      clasificacion: product.clasificacion,
    };
  });
}

interface LineShape {
  idproducto: string;
  modificador: boolean;
}

/** The product id of the base line each line belongs to (itself for a base line). */
function baseOfEachLine(lines: readonly LineShape[]): string[] {
  let base = '';
  return lines.map((l) => {
    if (!l.modificador) base = l.idproducto;
    return base;
  });
}

/**
 * SR's composite-product marks: a base with modifiers and its modifiers carry the base's
 * product in `idproductocompuesto`, and the base is the principal one.
 */
export function compositeMarks(lines: readonly LineShape[]): Array<{ idproductocompuesto: string; productocompuestoprincipal: boolean }> {
  const bases = baseOfEachLine(lines);
  const withModifiers = new Set(lines.flatMap((l, i) => (l.modificador ? [bases[i]!] : [])));
  return lines.map((l, i) => {
    const composite = withModifiers.has(bases[i]!);
    return { idproductocompuesto: composite ? bases[i]! : '', productocompuestoprincipal: composite && !l.modificador };
  });
}

export interface DetailLine extends LineShape, LineAmounts {
  comentario: string;
}

/** A line's detail row as Soft Restaurant writes it (tempcheqdet, order-lifecycle row 221; cheqdet takes the same). */
export function detailRow(
  line: DetailLine,
  marks: ReturnType<typeof compositeMarks>[number],
  at: { folio: number; movimiento: number; hora: Date; estacion: string; idmesero: string; folioproduccion?: number; prioridad?: string },
) {
  return {
    foliodet: at.folio,
    movimiento: at.movimiento,
    comanda: '',
    cantidad: line.cantidad.toFixed(),
    idproducto: line.idproducto,
    descuento: line.descuento.toFixed(),
    precio: line.precio.toFixed(4),
    impuesto1: line.impuesto1.toFixed(),
    impuesto2: line.impuesto2.toFixed(),
    impuesto3: line.impuesto3.toFixed(),
    preciosinimpuestos: precioSinImpuestos(line.precio, line.impuesto1, line.impuesto2, line.impuesto3).toFixed(4),
    preciocatalogo: line.precio.toFixed(4),
    tiempo: '',
    hora: at.hora,
    modificador: line.modificador,
    mitad: 0,
    comentario: line.comentario,
    idestacion: at.estacion,
    idmeseroproducto: at.idmesero,
    ...marks,
    marcar: false,
    estadomonitor: 0,
    nivel: 0,
    usuariodescuento: '',
    comentariodescuento: '',
    idtipodescuento: '',
    idcortesia: '',
    numerotarjeta: '',
    folioproduccion: at.folioproduccion ?? 0,
    prioridadproduccion: at.prioridad ?? '',
    sistema_envio: 1,
    promovolumen: false,
  };
}

const modifierKey = (base: string, modifier: string) => `${collationKey(base)}|${collationKey(modifier)}`;

async function registeredModifierPrices(
  ctx: PosContext,
  idEmpresa: string,
  pairs: ReadonlyArray<readonly [base: string, modifier: string]>,
): Promise<Map<string, string>> {
  if (pairs.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('modificadores')
    .select(['idproducto', 'idmodificador', 'precio', 'idempresa'])
    .where('idproducto', 'in', [...new Set(pairs.map(([b]) => b))])
    .where('idmodificador', 'in', [...new Set(pairs.map(([, m]) => m))])
    .where((eb) => eb.or([eb('idempresa', '=', idEmpresa), eb('idempresa', 'is', null)]))
    .execute();
  // A row for the company wins over a row shared by all companies.
  const sorted = [...rows].sort((a, b) => (a.idempresa === null ? 0 : 1) - (b.idempresa === null ? 0 : 1));
  return new Map(sorted.filter((r) => r.precio !== null).map((r) => [modifierKey(r.idproducto ?? '', r.idmodificador ?? ''), dec(r.precio).toFixed()]));
}

/** The monitors each product is shown on (productosmonitores); none where the branch has no such table. */
async function monitorsOf(ctx: PosContext, products: readonly string[]): Promise<Map<string, string[]>> {
  const byProduct = new Map<string, string[]>();
  if (!ctx.schema.hasTable('productosmonitores') || products.length === 0) return byProduct;
  const rows = await ctx.db
    .selectFrom('productosmonitores')
    .select(['idproducto', 'idmonitor'])
    .where('idproducto', 'in', [...new Set(products)])
    .where('idmonitor', 'is not', null)
    .orderBy('idmonitor')
    .execute();
  for (const r of rows) {
    const key = collationKey(r.idproducto!);
    byProduct.set(key, [...(byProduct.get(key) ?? []), text(r.idmonitor) ?? '']);
  }
  return byProduct;
}

/** Line numbers are numeric(3) in Soft Restaurant's tables. */
const MAX_LINES = 999;

/**
 * Writes priced lines after the account's last line (`lastMovimiento`), with one production
 * number and priority for all of them and their kitchen queue rows. Returns the real line
 * numbers, in the order the lines were sent.
 */
export async function insertLines(ctx: PosContext, account: AccountRef, lines: PricedLine[], lastMovimiento: number, handheld: boolean): Promise<number[]> {
  if (lastMovimiento + lines.length > MAX_LINES) {
    throw new PosError(
      'value_out_of_range',
      `An account holds at most ${MAX_LINES} lines (tempcheqdet.movimiento is numeric(3)); this one has ${lastMovimiento}.`,
      {
        field: 'productos',
      },
    );
  }
  const movimientos = lines.map((_, i) => lastMovimiento + i + 1);
  const marks = compositeMarks(lines);
  const folioproduccion = await nextFolioProduccion(ctx, account.seriefolio);
  const prioridad = await nextProductionPriority(ctx);
  const detail = lines.map((l, i) =>
    ctx.schema.completeRow(
      'tempcheqdet',
      detailRow({ ...l, comentario: l.input.comentario ?? '' }, marks[i]!, {
        folio: account.folio,
        movimiento: movimientos[i]!,
        hora: ctx.now,
        estacion: account.estacion,
        idmesero: account.idmesero,
        folioproduccion,
        prioridad,
      }),
    ),
  );
  await insertRows(ctx.db, 'tempcheqdet', detail);

  const monitors = await monitorsOf(
    ctx,
    lines.map((l) => l.idproducto),
  );
  const idturno = (await openShiftFor(ctx, account.estacion, account.idempresa)) ?? 0;
  await insertRows(
    ctx.db,
    'productosenproduccion',
    lines.flatMap((l, i) =>
      (monitors.get(collationKey(l.idproducto)) ?? []).map((idmonitor) =>
        ctx.schema.completeRow('productosenproduccion', {
          idproducto: l.idproducto,
          folio: account.folio,
          idmonitor,
          movimiento: movimientos[i],
          cantidad: l.cantidad.toDecimalPlaces(3).toFixed(),
          comentario: l.input.comentario ?? '',
          tiempo: '',
          hora: ctx.now,
          modificador: l.modificador,
          estadomonitor: 0,
          ...marks[i],
          // What SR's row 230 writes: minutes 0 and 0, no horaproduccion (whether SR would copy
          // minutes set in productosmonitores, the trace cannot show).
          minutospreparacion: 0,
          minutosalerta: 0,
          idturno_cierre: idturno,
          prioridad,
          separador: false,
        }),
      ),
    ),
  );
  if (handheld) {
    await addHandheldLines(
      ctx,
      account,
      lines.map((l, i) => ({ ...l, comentario: l.input.comentario ?? '', movimiento: movimientos[i]!, ...marks[i]! })),
    );
  }
  return movimientos;
}
