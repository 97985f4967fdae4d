/** A shift's cash cut ("corte"), as Soft Restaurant adds it up, for an open or a closed shift. */
import { z } from 'zod';
import { integer } from '../common.js';
import { defineOperation } from '../operation.js';

const tenders = z.object({
  efectivo: z.number().describe('cash (formasdepago.tipo 1), foreign currency at its exchange rate'),
  tarjeta: z.number().describe('cards (tipo 2)'),
  vales: z.number().describe('vouchers (tipo 3)'),
  credito: z.number().describe('credit and other (tipo 4)'),
});

export const cashCut = defineOperation({
  name: 'shifts.cashCut',
  write: false,
  input: () => z.object({ idTurno: integer((n) => n.positive()) }),
  output: () =>
    z.object({
      idTurno: z.number().int(),
      abierto: z.boolean().describe('true while the shift is open: the cut so far'),
      fondo: z.number(),
      fondoDolares: z.number(),
      formasDePago: z
        .array(
          z.object({
            idFormaDePago: z.string(),
            descripcion: z.string(),
            tipo: z.number().int(),
            importe: z.number().describe("amounts and tips in the method's own currency"),
            importePesos: z.number().describe('the same in pesos: SUM((importe+propina)*tipodecambio)'),
            propina: z.number().describe('the tips, in pesos'),
          }),
        )
        .describe("per payment method, over the shift's paid, not cancelled accounts"),
      porTipo: tenders.describe('in pesos, tips included, as SR sums each account (shift-close rows 195-198)'),
      ventas: z.object({
        cuentas: z.number().int().describe('paid, not cancelled accounts'),
        total: z.number(),
        subtotal: z.number(),
        impuestos: z.number(),
        descuentos: z.number(),
        cortesias: z.number(),
        propinas: z.number().describe('tips, in pesos (shift-close row 199)'),
        propinasTarjeta: z.number().describe('tips on cards, in pesos (shift-close row 200)'),
        cuentasCanceladas: z.number().int(),
        productosCancelados: z.number().int().describe('cancelled lines of the shift’s accounts'),
        importeCancelado: z.number().describe('their quantity times price, with taxes'),
      }),
      declaracion: tenders.nullable().describe('what the cashier declared at the close; null when nothing was'),
      diferencia: tenders.nullable().describe('declared minus taken, by tender (the fund not included); null when nothing was declared'),
    }),
});
