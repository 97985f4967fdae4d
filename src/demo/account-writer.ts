/**
 * Writes an account as Soft Restaurant leaves it, for the demo's history and the tests' fixtures:
 * header totals from the totals function, lines, payments in their cash/card/voucher/other
 * buckets; a closed one as a shift close copies it into cheques/cheqdet/chequespagos.
 */
import { Decimal } from 'decimal.js';
import type { InstalledSchema } from '../pos/columns.js';
import { insertRows } from '../pos/bulk-insert.js';
import type { PosDb, PosTable } from '../pos/schema.js';
import { compositeMarks, detailRow } from '../pos/operations/new-lines.js';
import { computeTotals, Dec, totalsToHeaderColumns, type AccountTotals, type Clasificacion } from '../pos/totals.js';

export interface AccountLineSpec {
  idproducto: string;
  cantidad?: Decimal.Value;
  /** Unit price with taxes; default the catalogue price for the account's company. */
  precio?: Decimal.Value;
  impuesto1?: Decimal.Value;
  impuesto2?: Decimal.Value;
  impuesto3?: Decimal.Value;
  /** Line discount percentage; 100 is a courtesy. */
  descuento?: Decimal.Value;
  modificador?: boolean;
  comentario?: string;
  hora?: Date;
}

export interface AccountPaymentSpec {
  idformadepago: string;
  /** Default: the account's total. */
  importe?: Decimal.Value;
  propina?: Decimal.Value;
}

export interface AccountSpec {
  estacion: string;
  idempresa: string;
  seriefolio: string;
  mesa: string;
  idmesero: string;
  nopersonas: number;
  tipodeservicio: number;
  orden: number;
  /** 0 until printed. */
  numcheque: number;
  /** 0 until paid. */
  idturno: number;
  fecha: Date;
  /** Set when printed. */
  cierre: Date | null;
  pagado: boolean;
  cancelado: boolean;
  impreso: boolean;
  facturado: boolean;
  /** General discount percentage. */
  descuento?: Decimal.Value;
  usuario: string;
  lines: AccountLineSpec[];
  pagos: AccountPaymentSpec[];
}

export interface WrittenAccount {
  folio: number;
  totals: AccountTotals;
}

const BUCKET_BY_TIPO = { 1: 'efectivo', 2: 'tarjeta', 3: 'vales', 4: 'otros' } as const;

type Row = Record<string, unknown>;

/** Inserts rows with every column SR fills, given or defaulted as SR does. */
export function insertCompleteRows(db: PosDb, schema: InstalledSchema, table: PosTable, rows: Row[]): Promise<void> {
  return insertRows(
    db,
    table,
    rows.map((r) => schema.completeRow(table, r)),
  );
}

/**
 * Writes one account into the temporary tables, or into the history tables as a shift close
 * leaves it (`closed`: the folio it had while open and the shift that closed it). Returns the new
 * folio (both headers' folio is an identity).
 */
export async function writeAccount(
  db: PosDb,
  schema: InstalledSchema,
  spec: AccountSpec,
  closed?: { foliotempcheques: number; idturnoCierre: number },
): Promise<WrittenAccount> {
  const products = await db
    .selectFrom('productos as p')
    .innerJoin('productosdetalle as d', 'd.idproducto', 'p.idproducto')
    .leftJoin('grupos as g', 'g.idgrupo', 'p.idgrupo')
    .select(['p.idproducto', 'g.clasificacion', 'd.precio', 'd.impuesto1', 'd.impuesto2', 'd.impuesto3'])
    .where('d.idempresa', '=', spec.idempresa)
    .where('p.idproducto', 'in', [...new Set(spec.lines.map((l) => l.idproducto))])
    .execute();
  const catalogue = new Map(products.map((p) => [p.idproducto, p]));
  const lines = spec.lines.map((l) => {
    const product = catalogue.get(l.idproducto);
    if (!product) throw new Error(`product ${l.idproducto} is not on the menu of company ${spec.idempresa}`);
    const c = Number(product.clasificacion);
    const clasificacion: Clasificacion = c === 1 || c === 2 ? c : 3;
    return {
      spec: l,
      cantidad: new Dec(l.cantidad ?? 1),
      precio: new Dec(l.precio ?? product.precio ?? 0),
      impuesto1: new Dec(l.impuesto1 ?? product.impuesto1 ?? 0),
      impuesto2: new Dec(l.impuesto2 ?? product.impuesto2 ?? 0),
      impuesto3: new Dec(l.impuesto3 ?? product.impuesto3 ?? 0),
      descuento: new Dec(l.descuento ?? 0),
      clasificacion,
    };
  });
  const totals = computeTotals(lines, spec.descuento ?? 0);

  const tipos = await db.selectFrom('formasdepago').select(['idformadepago', 'tipo', 'tipodecambio']).execute();
  const methods = new Map(tipos.map((t) => [t.idformadepago, t]));
  // The header's payment columns as SR computes them when it pays (order-lifecycle rows 577-582):
  // (amount + tip) × exchange rate by tender, the tips, and the tips paid by card.
  const buckets = { efectivo: new Dec(0), tarjeta: new Dec(0), vales: new Dec(0), otros: new Dec(0) };
  let propina = new Dec(0);
  let propinatarjeta = new Dec(0);
  const payments = spec.pagos.map((p) => {
    const method = methods.get(p.idformadepago);
    if (!method) throw new Error(`payment method ${p.idformadepago} does not exist`);
    const importe = new Dec(p.importe ?? totals.total);
    const rate = new Dec(method.tipodecambio ?? 1);
    const tip = new Dec(p.propina ?? 0);
    const bucket = BUCKET_BY_TIPO[Number(method.tipo) as keyof typeof BUCKET_BY_TIPO] ?? 'otros';
    buckets[bucket] = buckets[bucket].plus(importe.plus(tip).times(rate));
    propina = propina.plus(tip.times(rate));
    if (bucket === 'tarjeta') propinatarjeta = propinatarjeta.plus(tip.times(rate));
    return {
      idformadepago: p.idformadepago,
      importe: importe.toFixed(2),
      propina: new Dec(p.propina ?? 0).toFixed(2),
      tipodecambio: new Dec(method.tipodecambio ?? 1).toFixed(4),
      referencia: '',
    };
  });

  const header: Row = {
    ...totalsToHeaderColumns(totals),
    seriefolio: spec.seriefolio,
    numcheque: spec.numcheque,
    fecha: spec.fecha,
    cierre: spec.cierre,
    mesa: spec.mesa,
    nopersonas: spec.nopersonas,
    idmesero: spec.idmesero,
    pagado: spec.pagado,
    cancelado: spec.cancelado,
    impreso: spec.impreso,
    impresiones: spec.impreso ? 1 : 0,
    cambio: 0,
    reabiertas: 0,
    orden: spec.orden,
    facturado: spec.facturado,
    idempresa: spec.idempresa,
    tipodeservicio: spec.tipodeservicio,
    idturno: spec.idturno,
    estacion: spec.estacion,
    usuarioapertura: spec.usuario,
    usuariopago: spec.pagado ? spec.usuario : '',
    cuentaenuso: false,
    propina: propina.toFixed(2),
    propinatarjeta: propinatarjeta.toFixed(2),
    ...Object.fromEntries(Object.entries(buckets).map(([k, v]) => [k, v.toFixed(2)])),
    ...(closed ? { foliotempcheques: closed.foliotempcheques } : {}),
  };
  const headerTable = closed ? 'cheques' : 'tempcheques';
  const written = await db
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows are shaped by the installed schema
    .insertInto(headerTable as any)
    // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument -- as above
    .values(schema.completeRow(headerTable, header) as any)
    .returning('folio')
    .executeTakeFirstOrThrow();
  const folio = Number(written.folio);

  const marks = compositeMarks(lines.map((l) => ({ idproducto: l.spec.idproducto, modificador: l.spec.modificador ?? false })));
  const cierre = closed ? { idturno_cierre: closed.idturnoCierre } : {};
  await insertCompleteRows(
    db,
    schema,
    closed ? 'cheqdet' : 'tempcheqdet',
    lines.map((l, i) => ({
      ...detailRow({ ...l, idproducto: l.spec.idproducto, modificador: l.spec.modificador ?? false, comentario: l.spec.comentario ?? '' }, marks[i]!, {
        folio,
        movimiento: i + 1,
        hora: l.spec.hora ?? spec.fecha,
        estacion: spec.estacion,
        idmesero: spec.idmesero,
      }),
      ...cierre,
    })),
  );
  await insertCompleteRows(
    db,
    schema,
    closed ? 'chequespagos' : 'tempchequespagos',
    payments.map((p) => ({ folio, ...p, ...cierre })),
  );
  return { folio, totals };
}

/** Deletes an account from the temporary tables, as a shift close does once it is copied. */
async function deleteTempAccount(db: PosDb, folio: number): Promise<void> {
  await db.deleteFrom('tempcheqdet').where('foliodet', '=', folio).execute();
  await db.deleteFrom('tempchequespagos').where('folio', '=', folio).execute();
  await db.deleteFrom('tempcheques').where('folio', '=', folio).execute();
}

/**
 * Writes a paid account the way it lives through a shift: open in the temporary tables, then
 * copied into the history tables by the close and deleted. Going through tempcheques moves its
 * identity on, so `foliotempcheques` never names a later open account.
 */
export async function writeClosedAccount(db: PosDb, schema: InstalledSchema, spec: AccountSpec): Promise<WrittenAccount> {
  const temp = await writeAccount(db, schema, spec);
  const closed = await writeAccount(db, schema, spec, { foliotempcheques: temp.folio, idturnoCierre: spec.idturno });
  await deleteTempAccount(db, temp.folio);
  return closed;
}
