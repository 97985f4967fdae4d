/**
 * Sales history for a demo branch (API.md, Demo data: "a few closed orders from an earlier shift
 * with an invoice"), plus open accounts to work on. Accounts are written as Soft Restaurant leaves
 * them: header totals from the totals function, lines, payments in their cash/card/voucher/other
 * buckets; closed ones as a shift close copies them into cheques/cheqdet/chequespagos.
 */
import { Decimal } from 'decimal.js';
import type { InstalledSchema } from '../pos/columns.js';
import { insertRows } from '../pos/bulk-insert.js';
import type { PosDb, PosTable } from '../pos/schema.js';
import { compositeMarks, detailRow } from '../pos/operations/new-lines.js';
import { computeTotals, Dec, totalsToHeaderColumns, type AccountTotals, type Clasificacion } from '../pos/totals.js';
import { operationalDay } from '../pos/operational-day.js';
import { localIso } from '../pos/values.js';

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
  /** What the payments added to each `turnos` bucket, by `formasdepago.tipo`. */
  buckets: Record<'efectivo' | 'tarjeta' | 'vales' | 'otros', Decimal>;
}

const BUCKET_BY_TIPO = { 1: 'efectivo', 2: 'tarjeta', 3: 'vales', 4: 'otros' } as const;

type Row = Record<string, unknown>;

function insert(db: PosDb, schema: InstalledSchema, table: PosTable, rows: Row[]): Promise<void> {
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
  const buckets = { efectivo: new Dec(0), tarjeta: new Dec(0), vales: new Dec(0), otros: new Dec(0) };
  const payments = spec.pagos.map((p) => {
    const method = methods.get(p.idformadepago);
    if (!method) throw new Error(`payment method ${p.idformadepago} does not exist`);
    const importe = new Dec(p.importe ?? totals.total);
    const bucket = BUCKET_BY_TIPO[Number(method.tipo) as keyof typeof BUCKET_BY_TIPO] ?? 'otros';
    buckets[bucket] = buckets[bucket].plus(importe);
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
    propina: payments.reduce((sum, p) => sum.plus(p.propina), new Dec(0)).toFixed(2),
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
  await insert(
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
  await insert(
    db,
    schema,
    closed ? 'chequespagos' : 'tempchequespagos',
    payments.map((p) => ({ folio, ...p, ...cierre })),
  );
  return { folio, totals, buckets };
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

/** A minimal, unsigned CFDI 4.0 between SAT's test taxpayers: one consumption concept at IVA 16 %. */
function cfdi(opts: { serie: string; folio: number; fecha: Date; formaPago: string; subtotal: string; iva: string; total: string; uuid: string }): string {
  // CFDI dates are the issuer's local time without offset.
  const fecha = localIso(opts.fecha)!.slice(0, 19);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
      'xsi:schemaLocation="http://www.sat.gob.mx/cfd/4 http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd" ' +
      `Version="4.0" Serie="${opts.serie}" Folio="${opts.folio}" Fecha="${fecha}" FormaPago="${opts.formaPago}" NoCertificado="30001000000500003416" ` +
      `Certificado="" Sello="" SubTotal="${opts.subtotal}" Moneda="MXN" Total="${opts.total}" TipoDeComprobante="I" Exportacion="01" ` +
      'MetodoPago="PUE" LugarExpedicion="42501">',
    '  <cfdi:Emisor Rfc="EKU9003173C9" Nombre="ESCUELA KEMPER URGATE" RegimenFiscal="601"/>',
    '  <cfdi:Receptor Rfc="URE180429TM6" Nombre="UNIVERSIDAD ROBOTICA ESPAÑOLA" DomicilioFiscalReceptor="86991" RegimenFiscalReceptor="601" UsoCFDI="G03"/>',
    '  <cfdi:Conceptos>',
    `    <cfdi:Concepto ClaveProdServ="90101501" Cantidad="1" ClaveUnidad="E48" Unidad="Servicio" Descripcion="Consumo de alimentos y bebidas" ValorUnitario="${opts.subtotal}" Importe="${opts.subtotal}" ObjetoImp="02">`,
    '      <cfdi:Impuestos>',
    '        <cfdi:Traslados>',
    `          <cfdi:Traslado Base="${opts.subtotal}" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="${opts.iva}"/>`,
    '        </cfdi:Traslados>',
    '      </cfdi:Impuestos>',
    '    </cfdi:Concepto>',
    '  </cfdi:Conceptos>',
    `  <cfdi:Impuestos TotalImpuestosTrasladados="${opts.iva}">`,
    '    <cfdi:Traslados>',
    `      <cfdi:Traslado Base="${opts.subtotal}" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="${opts.iva}"/>`,
    '    </cfdi:Traslados>',
    '  </cfdi:Impuestos>',
    '  <cfdi:Complemento>',
    '    <tfd:TimbreFiscalDigital xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" ' +
      'xsi:schemaLocation="http://www.sat.gob.mx/TimbreFiscalDigital http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd" ' +
      `Version="1.1" UUID="${opts.uuid}" FechaTimbrado="${fecha}" RfcProvCertif="SAT970701NN3" SelloCFD="" NoCertificadoSAT="30001000000500003456" SelloSAT=""/>`,
    '  </cfdi:Complemento>',
    '</cfdi:Comprobante>',
    '',
  ].join('\n');
}

/** seed.ts's DEMO_COMPANY, not imported: seed.ts calls this module. */
const COMPANY = '0000000001';

/** Times of the demo, placed in the seed's operational day (06:00 to 05:59:59) that `now` falls in. */
export interface DemoDay {
  /** The share `fraction` (0..1) of the way from the day's 06:00 to now: always in the day, never in the future. */
  sinceStart(fraction: number): Date;
  /** `hours` before the day's 06:00: the night before belongs to the day before. */
  beforeStart(hours: number): Date;
}

export function demoDay(now: Date): DemoDay {
  const { start } = operationalDay(now, 6);
  const elapsed = now.getTime() - start.getTime();
  // Whole seconds, as SR's datetime columns keep them.
  const second = (ms: number) => new Date(Math.floor(ms / 1000) * 1000);
  return {
    sinceStart: (fraction) => second(start.getTime() + elapsed * fraction),
    beforeStart: (hours) => second(start.getTime() - hours * 3_600_000),
  };
}

/**
 * Adds to a seeded demo branch the night shift of the operational day before (number 1, 20:00
 * to 05:00; the open shift on CAJA1 becomes number 2) with three closed orders, one of them
 * invoiced and one at 03:00 (the day before's, by its shift), and, in today's shift, two open
 * accounts and one paid at CAJA1. Numbers follow the branch's counters: tickets 998-1000 are the
 * last ones series A printed before (`folios.ultimofolio` = 1000, then 1001 for today's paid
 * account), and today's accounts are orders 1 to 3 of the new shift.
 */
export async function seedHistory(db: PosDb, schema: InstalledSchema, day: DemoDay): Promise<void> {
  await db.updateTable('turnos').set({ idturno: 2 }).where('idturno', '=', 1).where('cierre', 'is', null).execute();
  await db.updateTable('parametros').set({ ultimoturno: 2 }).execute();

  const sale = (over: Partial<AccountSpec> & Pick<AccountSpec, 'lines' | 'fecha'>): AccountSpec => ({
    estacion: 'CAJA1',
    idempresa: COMPANY,
    seriefolio: 'A',
    mesa: '',
    idmesero: '01',
    nopersonas: 2,
    tipodeservicio: 1,
    orden: 0,
    numcheque: 0,
    idturno: 0,
    cierre: null,
    pagado: false,
    cancelado: false,
    impreso: false,
    facturado: false,
    usuario: 'CAJERO',
    pagos: [],
    ...over,
  });
  const closed = (n: number, over: Partial<AccountSpec> & Pick<AccountSpec, 'lines' | 'fecha' | 'pagos'>) =>
    sale({ orden: n, numcheque: 997 + n, idturno: 1, cierre: new Date(over.fecha.getTime() + 50 * 60_000), pagado: true, impreso: true, ...over });

  const history = [
    await writeClosedAccount(
      db,
      schema,
      closed(1, {
        mesa: '1',
        fecha: day.beforeStart(9),
        lines: [{ idproducto: '3001', cantidad: 2 }, { idproducto: '9001', modificador: true }, { idproducto: '1003' }],
        pagos: [{ idformadepago: 'EFE' }],
      }),
    ),
    await writeClosedAccount(
      db,
      schema,
      closed(2, {
        mesa: 'T1',
        nopersonas: 4,
        fecha: day.beforeStart(7),
        facturado: true,
        lines: [{ idproducto: '3005' }, { idproducto: '9004', modificador: true }, { idproducto: '3004' }, { idproducto: '1101', cantidad: 2 }],
        pagos: [{ idformadepago: 'TAR', propina: '50.00' }],
      }),
    ),
    await writeClosedAccount(
      db,
      schema,
      closed(3, {
        mesa: '',
        tipodeservicio: 3,
        idmesero: '',
        nopersonas: 1,
        fecha: day.beforeStart(3),
        lines: [{ idproducto: '1001' }, { idproducto: '4002' }],
        pagos: [
          { idformadepago: 'VAL', importe: '50.00' },
          { idformadepago: 'EFE', importe: '50.00' },
        ],
      }),
    ),
  ];

  const sum = (key: keyof WrittenAccount['buckets']) => history.reduce((total, h) => total.plus(h.buckets[key]), new Dec(0)).toFixed(2);
  await insert(db, schema, 'turnos', [
    {
      idturno: 1,
      fondo: '1500.00',
      apertura: day.beforeStart(10),
      cierre: day.beforeStart(1),
      idestacion: 'CAJA1',
      cajero: 'CAJERO',
      idempresa: COMPANY,
      idmesero: '',
      fondodolares: 0,
      efectivo: sum('efectivo'),
      tarjeta: sum('tarjeta'),
      vales: sum('vales'),
      credito: sum('otros'),
    },
  ]);

  // The second sale, paid by card (FormaPago 04) and written with facturado set.
  const invoiced = history[1]!;
  const totals = totalsToHeaderColumns(invoiced.totals);
  const fecha = day.beforeStart(6.5);
  await insert(db, schema, 'facturas', [
    {
      idfactura: 1,
      serie: 'F',
      folio: 1,
      fecha,
      idcliente: '',
      cancelada: false,
      subtotal: totals.subtotalcondescuento,
      impuesto: totals.totalimpuesto1,
      impuesto1: totals.totalimpuesto1,
      propina: 0,
      total: totals.total,
      concepto: 'Consumo de alimentos y bebidas',
      idturno: 1,
      impresiones: 1,
      idempresa: COMPANY,
      femexelectronico: true,
      femexrfc: 'URE180429TM6',
      femexxmlvalido: cfdi({
        serie: 'F',
        folio: 1,
        fecha,
        formaPago: '04',
        subtotal: totals.subtotalcondescuento,
        iva: totals.totalimpuesto1,
        total: totals.total,
        uuid: '5FB2822E-396D-4725-8521-CDC4BDD20CCF',
      }),
      uidtimbre: '5FB2822E-396D-4725-8521-CDC4BDD20CCF',
      versionfacturacion: 4,
      tipodecambio: 1,
    },
  ]);
  await insert(db, schema, 'foliosfacturados', [{ idfactura: 1, folio: invoiced.folio, porcentajefac: 100, idturno_cierre: 1 }]);

  const open = [
    sale({ mesa: '2', orden: 1, fecha: day.sinceStart(0.5), lines: [{ idproducto: '2001' }, { idproducto: '1102', cantidad: 2 }] }),
    sale({
      mesa: '1',
      idmesero: '02',
      orden: 2,
      nopersonas: 3,
      fecha: day.sinceStart(0.9),
      lines: [{ idproducto: '3002' }, { idproducto: '9002', modificador: true, comentario: 'bien gratinado' }, { idproducto: '1006' }],
    }),
  ];
  for (const spec of open) {
    const { folio } = await writeAccount(db, schema, spec);
    await db.updateTable('mesas').set({ estatus_ocupacion: 1 }).where('idmesa', '=', spec.mesa).execute();
    await insert(db, schema, 'mesasasignadas', [{ idmesa: spec.mesa, folio, activo: 1, idmesero: spec.idmesero }]);
  }
  // Paid in today's shift and still in the temporary tables until the shift closes: in the open-orders list.
  await writeAccount(
    db,
    schema,
    sale({
      mesa: '',
      tipodeservicio: 3,
      idmesero: '',
      nopersonas: 1,
      orden: 3,
      numcheque: 1001,
      idturno: 2,
      fecha: day.sinceStart(0.6),
      cierre: day.sinceStart(0.6),
      pagado: true,
      impreso: true,
      lines: [{ idproducto: '1003' }],
      pagos: [{ idformadepago: 'EFE' }],
    }),
  );
  await db
    .updateTable('folios')
    .set({ ultimaorden: open.length + 1, ultimofolio: 1001 })
    .where('serie', '=', 'A')
    .execute();
}
