/** Reads of accounts: temporary (tempcheques) and closed (cheques) orders, their lines, the operational day. */
import { z } from 'zod';
import { booleanQuery, dateFilter, dayStartHour, DEFAULT_DAY_START_HOUR, listResult, localDateTime, money, pageResult, paging, search } from '../common.js';
import { defineOperation } from '../operation.js';
import { folioParam, totales } from './orders.js';

export const lineRecord = z.object({
  folio: z.number().int(),
  movimiento: z.number().int(),
  idProducto: z.string(),
  descripcion: z.string().nullable(),
  cantidad: z.number(),
  precio: money.describe('unit price with taxes'),
  precioSinImpuestos: money,
  impuesto1: money.describe('rate in percent'),
  impuesto2: money,
  impuesto3: money,
  descuento: money.describe('line discount percentage'),
  cortesia: z.boolean().describe('descuento = 100'),
  modificador: z.boolean().describe('belongs to the nearest preceding line that is not a modifier'),
  comentario: z.string().nullable(),
  hora: localDateTime.nullable(),
});

export const paymentRecord = z.object({
  idFormaDePago: z.string(),
  descripcion: z.string().nullable(),
  importe: money,
  propina: money,
  tipoDeCambio: money,
});

export const taxRecord = z.object({
  nombre: z.string().describe('IVA for impuesto1; "Impuesto 2" and "Impuesto 3" for the others (the POS keeps no tax names)'),
  tasa: money.describe('rate in percent'),
  importe: money.describe("the order's tax at this rate, after every discount"),
});

export const orderRecord = z.object({
  folio: z.number().int(),
  numcheque: z.number().int().nullable().describe('ticket number, assigned when the account is printed'),
  seriefolio: z.string().nullable(),
  orden: z.number().int().nullable(),
  mesa: z.string().nullable(),
  idMesero: z.string().nullable(),
  noPersonas: z.number().int().nullable(),
  estacion: z.string().nullable(),
  idEmpresa: z.string().nullable(),
  idTurno: z.number().int().nullable().describe('0 while the account is not paid'),
  fecha: localDateTime.nullable().describe('opened'),
  cierre: localDateTime.nullable().describe('printed'),
  pagado: z.boolean(),
  cancelado: z.boolean(),
  impreso: z.boolean(),
  facturado: z.boolean(),
  tipoDeServicio: z.number().int().nullable().describe('1 comedor (dine-in), 2 domicilio (delivery), 3 rápido (quick sale)'),
  folioTemporal: z
    .number()
    .int()
    .nullable()
    .describe('closed orders: the folio the account had while open (cheques.foliotempcheques); null for temporary ones'),
  totales,
  productos: z.array(lineRecord),
  pagos: z.array(paymentRecord),
  impuestos: z.array(taxRecord).describe('one entry per tax and rate charged (rates above 0)'),
});

const facturado = booleanQuery.optional().describe('true: only invoiced orders; false: only orders not invoiced');
const tempSearch = search.describe('partial, case-insensitive match on folio, numcheque, mesa or total (the total as 2 decimals: 1500.00)');
const closedSearch = search.describe('partial, case-insensitive match on folio, numcheque or total (the total as 2 decimals: 1500.00)');
const lineSearch = search.describe('partial, case-insensitive match on idProducto, the product description or the comentario');
const folioFilter = folioParam.optional().describe('only this folio');

const closedFilters = {
  search: closedSearch,
  facturado,
  fechaStart: dateFilter.optional().describe('opened (fecha) at or after; ISO 8601, without offset = branch local time'),
  fechaEnd: dateFilter.optional().describe('opened (fecha) at or before; a date alone includes that whole day'),
  cierreStart: dateFilter.optional().describe('printed (cierre) at or after'),
  cierreEnd: dateFilter.optional().describe('printed (cierre) at or before; a date alone includes that whole day'),
  turnoAperturaStart: dateFilter.optional().describe('its shift (turnos, by idturno) opened at or after'),
  turnoAperturaEnd: dateFilter.optional().describe('its shift opened at or before; a date alone includes that whole day'),
};

export const listTempOrders = defineOperation({
  name: 'orders.listTemp',
  write: false,
  input: () => z.object({ ...paging(), folio: folioFilter, search: tempSearch, facturado }),
  output: () => pageResult(orderRecord).describe('accounts still in the temporary tables (open, or paid/cancelled before their shift closes), by folio'),
});

export const listTempOrderLines = defineOperation({
  name: 'orders.listTempLines',
  write: false,
  input: () => z.object({ ...paging(), folio: folioFilter, search: lineSearch }),
  output: () => pageResult(lineRecord).describe('by folio, then movimiento'),
});

export const listClosedOrders = defineOperation({
  name: 'orders.listClosed',
  write: false,
  input: () => z.object({ ...paging(), ...closedFilters }),
  output: () => pageResult(orderRecord).describe('orders moved to the history tables by a shift close, by folio'),
});

export const MAX_SHIFT_IDS = 10_000;

export const searchClosedOrdersByShifts = defineOperation({
  name: 'orders.searchClosedByShifts',
  write: false,
  input: () =>
    z.object({
      ...paging(),
      idTurnos: z
        .array(z.number().int())
        .max(MAX_SHIFT_IDS)
        .describe(`shift numbers (turnos.idturno), up to ${MAX_SHIFT_IDS}; repeats are ignored; none gives an empty page`),
      ...closedFilters,
    }),
  output: () => pageResult(orderRecord).describe('closed orders of those shifts, by idTurno, then folio'),
});

export const listClosedOrderLines = defineOperation({
  name: 'orders.listClosedLines',
  write: false,
  input: () => z.object({ ...paging(), folio: folioFilter, search: lineSearch }),
  output: () => pageResult(lineRecord).describe('by folio, then movimiento'),
});

export const dayOrderRecord = orderRecord.extend({
  origen: z.enum(['cerrada', 'temporal']).describe('cerrada: from the history tables (cheques); temporal: still in tempcheques'),
});

export const listDayOrders = defineOperation({
  name: 'orders.listDay',
  write: false,
  input: () =>
    z.object({
      ...paging(),
      search: tempSearch,
      facturado,
      dayStartHour: dayStartHour.describe(
        `hour (0-23, default ${DEFAULT_DAY_START_HOUR}) at which the operational day starts: before it, now still belongs to the day that began yesterday`,
      ),
    }),
  output: () =>
    pageResult(dayOrderRecord)
      .extend({
        ventanaInicio: localDateTime.describe('start of the operational day applied (inclusive)'),
        ventanaFin: localDateTime.describe('end of the operational day applied (exclusive)'),
      })
      .describe(
        'the orders of the shifts the operational day started (turnos.apertura in the window), closed or still open: ' +
          'closed ones from the history tables, then the paid and cancelled accounts of those shifts still in the temporary tables, ' +
          'then accounts not yet in any shift (idturno 0: open, or a quick sale waiting for its close) opened (fecha) in the window; each part by folio. ' +
          'A shift belongs to the one operational day it started in, so every sale is in exactly one day.',
      ),
});

export const listOpenOrders = defineOperation({
  name: 'orders.listOpen',
  write: false,
  input: () => z.object({}),
  output: () =>
    listResult(orderRecord).describe(
      `every account of the current operational day (${DEFAULT_DAY_START_HOUR}:00 to ${DEFAULT_DAY_START_HOUR - 1}:59:59 of the next day) ` +
        'still in the temporary tables and not cancelled, paid ones included, by folio: those opened in the day, whichever open shift holds them, ' +
        'and those held by a shift the day started; never one of a shift that has closed',
    ),
});
