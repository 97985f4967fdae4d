/**
 * Sales history for a demo branch (docs/operations.md, The demo: closed orders of an earlier shift,
 * one invoiced), plus open accounts to work on, written by account-writer.ts as Soft
 * Restaurant leaves them.
 */
import { randomUUID } from 'node:crypto';
import type { InstalledSchema } from '../pos/columns.js';
import type { PosDb } from '../pos/schema.js';
import { Dec, totalsToHeaderColumns } from '../pos/totals.js';
import { operationalDay } from '../pos/operational-day.js';
import { localIso } from '../pos/values.js';
import { insertCompleteRows, writeAccount, writeClosedAccount, type AccountSpec } from './account-writer.js';

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

  // The cashier's declaration at the close, where SR keeps it (declaracioncajero): one row per
  // payment method, here what each took; the shift's cash columns hold their sum by tender.
  const declared = await db
    .selectFrom('chequespagos as p')
    .innerJoin('formasdepago as f', 'f.idformadepago', 'p.idformadepago')
    .select((eb) => ['f.idformadepago', 'f.descripcion', 'f.tipo', 'f.tipodecambio', eb.fn.sum<string | number>('p.importe').as('importe')])
    .where('p.idturno_cierre', '=', 1)
    .groupBy(['f.idformadepago', 'f.descripcion', 'f.tipo', 'f.tipodecambio'])
    .orderBy('f.idformadepago')
    .execute();
  const byTender = (tipo: number) =>
    declared
      .filter((d) => Number(d.tipo) === tipo)
      .reduce((total, d) => total.plus(new Dec(d.importe).times(d.tipodecambio ?? 1)), new Dec(0))
      .toFixed(2);
  await insertCompleteRows(db, schema, 'turnos', [
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
      efectivo: byTender(1),
      tarjeta: byTender(2),
      vales: byTender(3),
      credito: byTender(4),
    },
  ]);
  const shift = await db.selectFrom('turnos').select('idturnointerno').where('idturno', '=', 1).executeTakeFirstOrThrow();
  await insertCompleteRows(
    db,
    schema,
    'declaracioncajero',
    declared.map((d) => ({
      idturnointerno: shift.idturnointerno,
      idturno: 1,
      idformadepago: d.idformadepago,
      importedeclarado: new Dec(d.importe).toFixed(2),
      tipodecambio: d.tipodecambio,
      tipo: d.tipo,
      descripcion: d.descripcion,
      WorkspaceId: randomUUID(),
    })),
  );

  // The second sale, paid by card (FormaPago 04) and written with facturado set.
  const invoiced = history[1]!;
  const totals = totalsToHeaderColumns(invoiced.totals);
  const fecha = day.beforeStart(6.5);
  await insertCompleteRows(db, schema, 'facturas', [
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
  await insertCompleteRows(db, schema, 'foliosfacturados', [{ idfactura: 1, folio: invoiced.folio, porcentajefac: 100, idturno_cierre: 1 }]);

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
    // As SR opens an account: no `mesasasignadas` row, `mesas` untouched (order-lifecycle rows 87-97).
    await writeAccount(db, schema, spec);
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
