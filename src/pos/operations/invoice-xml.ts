/** Invoice reads. Each function is one operation of protocol/operations/invoices.ts. */
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/invoices.js';
import type { PosContext } from '../context.js';
import { implement } from '../operation.js';
import { flag, int, text } from '../values.js';

/** Where an account lives: history (after its shift closed) or the temporary tables (before). */
const ACCOUNT_TABLES = [
  { headers: 'cheques', links: 'foliosfacturados' },
  { headers: 'tempcheques', links: 'tempfoliosfacturados' },
] as const;

interface Candidate {
  idFactura: number;
  folio: number;
  fecha: Date | null;
  cancelada: boolean;
}

interface Lookup {
  numCheque: number;
  idEmpresa: string;
  serie?: string;
}

/**
 * Invoices of the company linked to an account with that ticket number, in one pair of tables
 * (typed as the history pair: the temporary pair has every column used here under the same name).
 */
async function linkedInvoices(ctx: PosContext, tables: (typeof ACCOUNT_TABLES)[number], f: Lookup): Promise<Candidate[]> {
  const rows = await ctx.db
    .selectFrom(`${tables.headers} as h` as 'cheques as h')
    .innerJoin(`${tables.links} as l` as 'foliosfacturados as l', 'l.folio', 'h.folio')
    .innerJoin('facturas as f', 'f.idfactura', 'l.idfactura')
    .select(['f.idfactura', 'h.folio', 'f.fecha', 'f.cancelada'])
    .where('h.numcheque', '=', f.numCheque)
    .where('h.idempresa', '=', f.idEmpresa)
    .where('f.idempresa', '=', f.idEmpresa)
    .$if(f.serie !== undefined, (q) => q.where('h.seriefolio', '=', f.serie!))
    .execute();
  return rows.map((r) => ({ idFactura: Number(r.idfactura), folio: Number(r.folio), fecha: r.fecha, cancelada: flag(r.cancelada) }));
}

/**
 * An account invoiced, cancelled and invoiced again has several invoices: the one in force
 * (not cancelled) wins, then the most recent.
 */
function preferred(a: Candidate, b: Candidate): number {
  if (a.cancelada !== b.cancelada) return a.cancelada ? 1 : -1;
  const byDate = (b.fecha?.getTime() ?? 0) - (a.fecha?.getTime() ?? 0);
  return byDate !== 0 ? byDate : b.idFactura - a.idFactura;
}

export const invoiceXml = implement(ops.invoiceXml, async (ctx, input) => {
  const candidates: Candidate[] = [];
  for (const tables of ACCOUNT_TABLES) candidates.push(...(await linkedInvoices(ctx, tables, input)));
  const best = candidates.sort(preferred)[0];
  const where = `account ${input.numCheque}${input.serie === undefined ? '' : ' of the series in serie'} in the company in idEmpresa`;
  if (!best) throw new PosError('invoice_not_found', `There is no invoice for ${where}.`, { numCheque: input.numCheque });

  const invoice = await ctx.db
    .selectFrom('facturas')
    .select(['serie', 'folio', 'femexxmlvalido'])
    .where('idfactura', '=', best.idFactura)
    .where('idempresa', '=', input.idEmpresa)
    .executeTakeFirstOrThrow();
  const xml = invoice.femexxmlvalido ?? '';
  if (xml.trim() === '') {
    throw new PosError('invoice_not_found', `Invoice ${best.idFactura} of ${where} has no CFDI XML.`, {
      numCheque: input.numCheque,
      idFactura: best.idFactura,
    });
  }
  return {
    idFactura: best.idFactura,
    serie: text(invoice.serie),
    folioFactura: int(invoice.folio),
    folio: best.folio,
    cancelada: best.cancelada,
    xml,
    fileName: `factura-${best.idFactura}.xml`,
  };
});
