/** Settling an account as Soft Restaurant does: print it, pay it, reopen it, cancel it. */
import { z } from 'zod';
import { defineOperation, origin } from '../operation.js';
import { printerId } from '../printers.js';
import { decimal } from '../common.js';
import { folioParam, totales, usuario } from './orders.js';
import { printers, printOutput } from './printing.js';

const settled = {
  folio: z.number().int(),
  numcheque: z.number().int().describe('the ticket number (folios.ultimofolio of the series), given on the first print and kept'),
  totales,
};

/** POST /temp_ordenes/{licenseKey}/{folio}/imprimir, as the client sends it. */
export const printAccountBody = z.object({
  folio: folioParam,
  usuario,
  printerId: printerId
    .optional()
    .describe("also print the customer's ticket on this registered thermal printer of the branch, once the account's print has committed"),
});

export const printAccount = defineOperation({
  name: 'orders.print',
  write: true,
  marks: (input) => [origin('orden', input.folio)],
  // With a printerId, the customer's ticket goes to that printer after the commit.
  usesPrinter: (params) => typeof params === 'object' && params !== null && (params as { printerId?: unknown }).printerId !== undefined,
  input: () =>
    printAccountBody.extend({ printers: printers.optional() }).superRefine((input, ctx) => {
      if (input.printerId !== undefined && !input.printers?.[input.printerId]) {
        ctx.addIssue({ code: 'custom', path: ['printers', input.printerId], message: `no target for printer ${input.printerId}` });
      }
    }),
  output: () =>
    z.object({
      ...settled,
      impresiones: z.number().int().describe('how many times the account has been printed'),
      ticket: printOutput.optional().describe("the customer's ticket (with printerId): its print job and what the printer said"),
    }),
});

const payment = z.object({
  idFormaDePago: z.string().min(1).max(5).describe('the payment method (formasdepago.idformadepago); must exist'),
  importe: decimal(4)
    .positive()
    .max(999_999_999)
    .describe("the amount tendered, in the method's own currency (dollars for a dollar method); pesos in cents, at most 2 decimals"),
  propina: decimal(4).min(0).max(999_999_999).default(0).describe("the tip on this tender, in the method's own currency; pesos in cents, at most 2 decimals"),
  referencia: z.string().max(50).default('').describe('e.g. the card authorization'),
});

export const payAccount = defineOperation({
  name: 'orders.pay',
  write: true,
  marks: (input) => [origin('orden', input.folio)],
  input: () =>
    z.object({
      folio: folioParam,
      pagos: z.array(payment).min(1).max(20),
      usuario,
    }),
  output: () =>
    z.object({
      ...settled,
      idTurno: z.number().int().describe('the open shift the payment landed in'),
      cambio: z.number().describe('the change handed back, in pesos: what cash tendered beyond the total'),
      propina: z.number().describe('the tips, in pesos'),
    }),
});

export const reopenAccount = defineOperation({
  name: 'orders.reopen',
  write: true,
  marks: (input) => [origin('orden', input.folio)],
  input: () => z.object({ folio: folioParam, usuario }),
  output: () => z.object({ folio: z.number().int(), reabiertas: z.number().int().describe('how many times the account has been reopened') }),
});

export const cancelAccount = defineOperation({
  name: 'orders.cancel',
  write: true,
  marks: (input) => [origin('orden', input.folio)],
  input: () =>
    z.object({
      folio: folioParam,
      razon: z.string().trim().min(1).max(200).describe('why; stored in tempcheques.razoncancelado and with each cancelled line'),
      idMotivoCancela: z.string().max(5).optional().describe('the cancellation motive (motivoscancelacion); must exist'),
      usuario,
    }),
  output: () => z.object({ folio: z.number().int(), itemsCancelados: z.number().int() }),
});
