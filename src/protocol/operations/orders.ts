/** Writes on an account: create (open or closed), add lines, cancel lines, discounts. */
import { z } from 'zod';
import { decimal, integer } from '../common.js';
import { defineOperation, origin } from '../operation.js';

/** A line's tax rate in percent: `tempcheqdet.impuesto1..3` keep 2 decimals (numeric(5,2)). */
const rate = decimal(2).min(0).max(100);
const text = (max: number) => z.string().max(max);
export const usuario = text(15).optional().describe('Soft Restaurant user (usuarios.usuario) recorded as the author; must exist');

/**
 * An account's folio. 0 is one: SR reseeds an emptied `tempcheques` to 0 at a close (shift-close
 * row 137), and SQL Server then numbers the next account 0 if the table never had one.
 */
export const folioParam = integer((n) => n.nonnegative());

export const lineInput = z.object({
  movimiento: z.number().int().min(1).describe('position in this request, from 1, consecutive'),
  idProducto: text(15).min(1),
  cantidad: decimal(6).positive().max(99_999_999),
  precio: decimal(4).min(0).max(999_999_999).optional().describe('unit price WITH taxes; default: catalogue price for the account company'),
  impuesto1: rate.optional(),
  impuesto2: rate.optional(),
  impuesto3: rate.optional(),
  modificador: z.boolean().default(false).describe('belongs to the nearest preceding non-modifier line'),
  comentario: text(254).optional(),
});

/** Lines as sent: numbered 1..n in order, the first one a base product. */
export const linesInput = z
  .array(lineInput)
  .min(1)
  .max(500)
  .superRefine((lines, ctx) => {
    lines.forEach((line, i) => {
      if (line.movimiento !== i + 1)
        ctx.addIssue({ code: 'custom', path: [i, 'movimiento'], message: `must be ${i + 1}: movimiento starts at 1 and is consecutive, in order` });
    });
    if (lines[0]?.modificador) ctx.addIssue({ code: 'custom', path: [0, 'modificador'], message: 'the first line cannot be a modifier' });
  });

export type LineInput = z.output<typeof lineInput>;

export const totales = z.object({
  subtotal: z.number(),
  descuento: z.number(),
  descuentoImporte: z.number(),
  subtotalConDescuento: z.number(),
  totalImpuesto1: z.number(),
  totalImpuesto2: z.number(),
  totalImpuesto3: z.number(),
  total: z.number(),
  totalAlimentos: z.number(),
  totalBebidas: z.number(),
  totalOtros: z.number(),
  totalDescuentos: z.number(),
  totalCortesias: z.number(),
  totalDescuentoYCortesia: z.number(),
  totalSinDescuento: z.number(),
  totalArticulos: z.number(),
});

const accountHeader = {
  turnDependent: z.boolean().default(false).describe('true: refuse (409 shift_not_open) unless a shift is open for estacion + idEmpresa'),
  estacion: text(40).min(1),
  serie: text(15)
    .optional()
    .describe(
      "folio series (folios.serie) orden and numcheque are allocated from; default: the station's (estaciones.seriefolio). A series the branch has no counters for is refused (422 series_not_found)",
    ),
  idEmpresa: text(15).min(1),
  noPersonas: z.number().int().min(0).max(999).default(1),
  usuario,
};

/**
 * The table, as SR's terminals name it from `mesas`: spaces around it are dropped, so that " T2"
 * is not a second account on T2's table that only looks like it.
 */
const tableName = z.string().trim().max(100).default('').describe("the table (mesas.idmesa); '' for none");

export const createOrder = defineOperation({
  name: 'orders.create',
  write: true,
  marks: (_, result) => [origin('orden', result.folio)],
  input: () =>
    z.object({
      ...accountHeader,
      mesa: tableName,
      idMesero: text(4).default(''),
      tipoDeServicio: z
        .union([z.literal(1), z.literal(2), z.literal(3)])
        .default(1)
        .describe('1 comedor (dine-in), 2 domicilio (delivery), 3 rápido (quick sale)'),
      productos: linesInput.optional(),
    }),
  output: () => z.object({ folio: z.number().int(), orden: z.number().int(), movimientos: z.array(z.number().int()), totales }),
});

export const createClosedOrder = defineOperation({
  name: 'orders.createClosed',
  write: true,
  marks: (_, result) => [origin('orden', result.folio)],
  input: () =>
    z.object({
      ...accountHeader,
      mesa: tableName,
      idFormaDePago: text(5).min(1),
      productos: linesInput.optional().describe("an extension of the seed's body: without lines the sale is created empty, paid with a payment of 0"),
    }),
  output: () => z.object({ folio: z.number().int(), numcheque: z.number().int(), idTurno: z.number().int(), totales }),
});

export const addLines = defineOperation({
  name: 'orders.addLines',
  write: true,
  marks: (input) => [origin('orden', input.folio)],
  input: () => z.object({ folio: folioParam, usuario, productos: linesInput }),
  output: () => z.object({ folio: z.number().int(), itemsAgregados: z.number().int(), movimientos: z.array(z.number().int()), totales }),
});

export const cancelLines = defineOperation({
  name: 'orders.cancelLines',
  write: true,
  marks: (input) => [origin('orden', input.folio)],
  input: () =>
    z.object({
      folio: folioParam,
      productos: z
        .array(z.object({ movimiento: z.number().int().min(1), idProducto: text(15).min(1) }))
        .min(1)
        .max(500)
        .superRefine(eachLineOnce),
      razon: text(200).optional().describe('stored as "<razon> Mesa: <mesa>", or the reason alone for a sale without a table; cut to the column width'),
      usuario,
    }),
  output: () => z.object({ folio: z.number().int(), itemsCancelados: z.number().int(), movimientos: z.array(z.number().int()), totales }),
});

/**
 * A line named twice in one request is refused: two discounts for it would leave one silently
 * unapplied, and a client that meant two lines would cancel one.
 */
function eachLineOnce(lines: ReadonlyArray<{ movimiento: number }>, ctx: z.RefinementCtx) {
  const first = new Map<number, number>();
  lines.forEach((line, i) => {
    const earlier = first.get(line.movimiento);
    if (earlier === undefined) first.set(line.movimiento, i);
    else ctx.addIssue({ code: 'custom', path: [i, 'movimiento'], message: `names the same line as productos.${earlier}` });
  });
}

const discountAmount = {
  modo: z.enum(['porcentaje', 'importe']),
  base: z.enum(['subtotal', 'total']).default('subtotal').describe('for importe: the pre-tax subtotal or the total with taxes'),
  valor: decimal(4).min(0).max(999_999_999),
};

function percentAtMost100(d: { modo: string; valor: number }, ctx: z.RefinementCtx) {
  if (d.modo === 'porcentaje' && d.valor > 100) ctx.addIssue({ code: 'custom', path: ['valor'], message: 'a percentage is at most 100' });
}

const forzarDescuento = z.boolean().describe("the branch's forced-discount setting (parametros3.forzardescuento), as it is; the API never blocks on it");

const discountMeta = {
  comentario: text(60).optional(),
  idTipoDescuento: text(5).optional(),
  usuario,
};

export const generalDiscount = defineOperation({
  name: 'orders.discount',
  write: true,
  marks: (input) => [origin('orden', input.folio)],
  input: () => z.object({ folio: folioParam, ...discountAmount, ...discountMeta }).superRefine(percentAtMost100),
  output: () => z.object({ folio: z.number().int(), itemsAfectados: z.number().int(), forzarDescuento, totales }),
});

export const lineDiscount = defineOperation({
  name: 'orders.lineDiscount',
  write: true,
  marks: (input) => [origin('orden', input.folio)],
  input: () =>
    z.object({
      folio: folioParam,
      ...discountMeta,
      productos: z
        .array(z.object({ movimiento: z.number().int().min(1), idProducto: text(15).min(1), ...discountAmount }).superRefine(percentAtMost100))
        .min(1)
        .max(500)
        .superRefine(eachLineOnce)
        .describe('valor is PER UNIT for importe'),
    }),
  output: () => z.object({ folio: z.number().int(), itemsAfectados: z.number().int(), forzarDescuento, totales }),
});
