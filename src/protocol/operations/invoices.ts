/** Electronic invoices (facturas): the CFDI XML of the invoice issued for an account. */
import { z } from 'zod';
import { integer } from '../common.js';
import { defineOperation } from '../operation.js';

export const invoiceXml = defineOperation({
  name: 'invoices.xml',
  write: false,
  input: () =>
    z.object({
      numCheque: integer((n) => n.positive()).describe('the ticket number of the account (cheques.numcheque / tempcheques.numcheque)'),
      idEmpresa: z.string().min(1).max(15).describe('the company of the account and of the invoice'),
      serie: z.string().max(15).optional().describe('the folio series (seriefolio) of the account, when ticket numbers repeat across series'),
    }),
  output: () =>
    z.object({
      idFactura: z.number().int(),
      serie: z.string().nullable().describe('facturas.serie'),
      folioFactura: z.number().int().nullable().describe('facturas.folio'),
      folio: z.number().int().describe('the account folio the invoice is linked to'),
      cancelada: z.boolean(),
      xml: z.string().describe('facturas.femexxmlvalido'),
      fileName: z.string().describe('name offered to save the document as'),
    }),
});
