/** Catalogue writes: replacing a product's data and its price for one company. */
import { z } from 'zod';
import { decimal, money } from '../common.js';
import { defineOperation, origin } from '../operation.js';
import { productRecord } from './catalogs.js';

// productosdetalle.impuesto1..3 are numeric(5,2): a third decimal would be rounded away silently.
const rate = decimal(2).min(0).max(100).describe('rate in percent, at most 2 decimals');
const text = (max: number) => z.string().max(max);

export const updateProduct = defineOperation({
  name: 'products.update',
  write: true,
  marks: (input) => [origin('producto', input.idProducto)],
  input: () =>
    z.object({
      idProducto: text(15).min(1),
      idEmpresa: text(15).min(1).describe('the company whose price and flags (productosdetalle) are replaced; the product must already have them'),
      descripcionProducto: text(60).min(1),
      idGrupo: text(5).min(1).describe('must exist (grupos)'),
      nombreCorto: text(20),
      visibleMenu: z.boolean(),
      precio: decimal(4).min(0).max(999_999_999).describe('price WITH taxes; precioSinImpuestos is recomputed from it'),
      impuesto1: rate,
      impuesto2: rate,
      impuesto3: rate,
      bloqueado: z.boolean(),
      permitirprodcompenmodif: z.boolean(),
      usuario: text(15).optional().describe('Soft Restaurant user (usuarios.usuario) recorded in the price log and system log; must exist; default API'),
    }),
  output: () =>
    productRecord.extend({
      precioAnterior: money.nullable().describe('the price with taxes before the update'),
      precioCambiado: z.boolean().describe('true when precio changed: a logcambioprecios row was written'),
    }),
});
