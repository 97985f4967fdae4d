import { invoiceXml } from '../../protocol/operations/invoices.js';
import { route } from './route.js';

export const invoiceRoutes = [
  route({
    operationId: 'getInvoiceXml',
    method: 'GET',
    url: '/facturas/:licenseKey/:numCheque/xml',
    op: invoiceXml,
    summary: 'Download the CFDI XML of the invoice of an account',
    tag: 'Invoices',
    from: 'query',
    pathInput: ['numCheque'],
    envelope: 'xml',
    jobId: true,
  }),
];
