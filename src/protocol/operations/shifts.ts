/** Shifts (turnos): list, open, and close with the consolidation of its accounts. */
import { z } from 'zod';
import { dateFilter, integer, pageResult, paging, search } from '../common.js';
import { defineOperation, origin } from '../operation.js';

const amount = z
  .number()
  .min(0)
  .max(999_999_999)
  .refine((n) => Number(n.toFixed(2)) === n, 'at most 2 decimals');

/**
 * What a shift took, by tender, in pesos, as Soft Restaurant's cash cut adds it up: each
 * payment's amount and tip times its exchange rate, by the payment method's tipo, over the
 * shift's paid, not cancelled accounts. For an open shift, what it took so far.
 */
const tenderTotals = {
  efectivo: z.number().describe('cash (formasdepago.tipo 1), foreign currency included at its exchange rate'),
  tarjeta: z.number().describe('cards (tipo 2)'),
  vales: z.number().describe('vouchers (tipo 3)'),
  credito: z.number().describe('credit and other (tipo 4)'),
};

export const shiftRecord = z.object({
  idTurno: z.number().int(),
  estacion: z.string().nullable(),
  idEmpresa: z.string().nullable(),
  serie: z.string().nullable().describe("the station's folio series"),
  apertura: z.string().nullable(),
  cierre: z.string().optional().describe('absent while the shift is open'),
  fondo: z.number(),
  cajero: z.string().nullable(),
  idMesero: z.string().nullable(),
  fondoDolares: z.number(),
  ...tenderTotals,
  declaracion: z
    .object(tenderTotals)
    .nullable()
    .describe(
      "what the cashier declared at the close, by tender, in pesos (SR's declaracioncajero, summed in the shift's cash columns); null when nothing was declared",
    ),
});

export const listShifts = defineOperation({
  name: 'shifts.list',
  write: false,
  input: () =>
    z.object({
      ...paging(),
      search: search.describe('station, cashier or shift number'),
      aperturaStart: dateFilter.optional(),
      aperturaEnd: dateFilter.optional(),
      cierreStart: dateFilter.optional().describe('any cierre filter leaves out shifts still open'),
      cierreEnd: dateFilter.optional(),
    }),
  output: () => pageResult(shiftRecord),
});

export const openShift = defineOperation({
  name: 'shifts.open',
  write: true,
  marks: (_, result) => [origin('turno', result.idTurno)],
  input: () =>
    z.object({
      estacion: z.string().min(1).max(40),
      idEmpresa: z.string().min(1).max(15),
      idMesero: z.string().max(4).optional(),
      cajero: z.string().min(1).max(15).describe('the cashier (usuarios.usuario); must exist'),
      fondo: amount.describe('opening cash float'),
      fondoDolares: amount.default(0),
    }),
  output: () =>
    z.object({
      idTurno: z.number().int(),
      apertura: z.string(),
      fondo: z.number(),
      cajero: z.string(),
      idMesero: z.string().nullable(),
      fondoDolares: z.number(),
    }),
});

export const closeShift = defineOperation({
  name: 'shifts.close',
  write: true,
  // The accounts a close moves to history are its changes too: the one mark covers them.
  marks: (input) => [origin('cierre', input.idTurno)],
  input: () =>
    z.object({
      idTurno: integer((n) => n.positive()),
      estacion: z.string().min(1).max(40).describe("the shift's station, or a terminal that sells on its shift (estaciones.cajacomandero)"),
      idEmpresa: z.string().min(1).max(15),
      serie: z
        .string()
        .max(15)
        .optional()
        .describe(
          "series whose order and production counters restart; default: the shift's station's series (estaciones.seriefolio). A series the branch does not have is refused (422 series_not_found)",
        ),
      declaracion: z
        .array(
          z.object({
            idFormaDePago: z.string().min(1).max(5).describe('the payment method counted (formasdepago.idformadepago); must exist'),
            importe: amount.describe("what was counted, in the payment method's own currency (dollars for a dollar method)"),
          }),
        )
        .max(100)
        .refine((d) => new Set(d.map((x) => x.idFormaDePago.trimEnd().toUpperCase())).size === d.length, 'each payment method at most once')
        .optional()
        .describe(
          "what the cashier counted, per payment method: SR's declaracioncajero rows (amount, the method's exchange rate and tender), summed in pesos by tender into the shift's cash columns; nothing declared leaves them 0",
        ),
    }),
  output: () =>
    z.object({
      idTurno: z.number().int(),
      cierre: z.string(),
      migratedCheques: z.number().int().describe('paid and cancelled accounts moved to the history tables'),
      ...tenderTotals,
    }),
});
