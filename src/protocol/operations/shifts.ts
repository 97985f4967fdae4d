/** Shifts (turnos): list, open, and close with the consolidation of its accounts. */
import { z } from 'zod';
import { dateFilter, integer, pageResult, paging, search } from '../common.js';
import { defineOperation } from '../operation.js';

const amount = z
  .number()
  .min(0)
  .max(999_999_999)
  .refine((n) => Number(n.toFixed(2)) === n, 'at most 2 decimals');

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
  efectivo: z.number(),
  tarjeta: z.number(),
  vales: z.number(),
  credito: z.number(),
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
  input: () =>
    z.object({
      idTurno: integer((n) => n.positive()),
      estacion: z.string().min(1).max(40),
      idEmpresa: z.string().min(1).max(15),
      serie: z
        .string()
        .max(15)
        .optional()
        .describe("series whose order and production counters restart; default: the shift's station's series (estaciones.seriefolio)"),
      declaracion: z
        .object({ efectivo: amount.optional(), tarjeta: amount.optional(), vales: amount.optional(), credito: amount.optional() })
        .optional()
        .describe(
          "what the cashier counted, by tender; kept in the shift's cash columns for SR's cash cut to compare with the payments (0 for what is not declared)",
        ),
    }),
  output: () =>
    z.object({
      idTurno: z.number().int(),
      cierre: z.string(),
      migratedCheques: z.number().int().describe('paid and cancelled accounts moved to the history tables'),
      efectivo: z.number(),
      tarjeta: z.number(),
      vales: z.number(),
      credito: z.number(),
    }),
});
