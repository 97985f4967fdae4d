/** Catalogue reads: products, groups, stations, waiters, companies, payment methods, discount types. */
import { z } from 'zod';
import { booleanQuery, listResult, money, pageResult, paging, search } from '../common.js';
import { defineOperation } from '../operation.js';

export const clasificacion = z.union([z.literal(1), z.literal(2), z.literal(3)]);

export const productRecord = z.object({
  idProducto: z.string(),
  idEmpresa: z.string(),
  descripcionProducto: z.string(),
  idGrupo: z.string().nullable(),
  clasificacion: z.number().int().nullable(),
  nombreCorto: z.string().nullable(),
  visibleMenu: z.boolean(),
  precio: money,
  precioSinImpuestos: money,
  impuesto1: money,
  impuesto2: money,
  impuesto3: money,
  bloqueado: z.boolean(),
  permitirprodcompenmodif: z.boolean(),
});

export const listProducts = defineOperation({
  name: 'products.list',
  write: false,
  input: () =>
    z.object({
      ...paging(),
      search,
      idGrupo: z.string().max(5).optional(),
      clasificacion: z.enum(['1', '2', '3']).transform(Number).or(clasificacion).optional().describe('1 = bebidas, 2 = alimentos, 3 = otros'),
      visibleMenu: booleanQuery.optional(),
      idEmpresa: z.string().max(15).optional(),
    }),
  output: () => pageResult(productRecord),
});

export const groupRecord = z.object({
  idGrupo: z.string(),
  descripcion: z.string().nullable(),
  clasificacion: z.number().int().nullable(),
});

export const listGroups = defineOperation({
  name: 'groups.list',
  write: false,
  input: () => z.object({ ...paging(), search: search.describe('id, description or classification (1-3 or bebidas/alimentos/otros)') }),
  output: () => pageResult(groupRecord),
});

/** The seed: "Stations are tables, areas and terminals." */
export const STATION_KINDS = ['terminal', 'area', 'mesa'] as const;

const stationFields = {
  idEstacion: z.string().describe('estaciones.idestacion, areasrestaurant.idarearestaurant or mesas.idmesa'),
  descripcion: z.string().nullable(),
};

export const stationRecord = z.discriminatedUnion('tipo', [
  z.object({
    tipo: z.literal('terminal'),
    ...stationFields,
    serie: z.string().nullable(),
    seriefolio: z.string().nullable(),
    ip: z.string().nullable(),
  }),
  z.object({
    tipo: z.literal('area'),
    ...stationFields,
    tipoDeServicio: z.number().int().nullable().describe('1 dine-in, 2 delivery, 3 quick sale'),
  }),
  z.object({
    tipo: z.literal('mesa'),
    ...stationFields,
    idArea: z.string().nullable().describe("the table's restaurant area (an idEstacion of tipo area)"),
    personas: z.number().int().nullable().describe('seats'),
    ocupada: z.boolean().describe('an open account holds the table'),
    folio: z.number().int().nullable().describe('that account, or null'),
  }),
]);

export const listStations = defineOperation({
  name: 'stations.list',
  write: false,
  input: () => z.object({ ...paging(), search: search.describe('id or description, of terminals, areas and tables alike') }),
  output: () => pageResult(stationRecord).describe('terminals, then areas, then tables, each by id'),
});

export const waiterRecord = z.object({ idMesero: z.string(), nombre: z.string().nullable(), visible: z.boolean() });

export const listWaiters = defineOperation({
  name: 'waiters.list',
  write: false,
  input: () => z.object({ search }),
  output: () => listResult(waiterRecord),
});

export const companyRecord = z.object({
  idEmpresa: z.string(),
  nombre: z.string().nullable(),
  razonSocial: z.string().nullable(),
  rfc: z.string().nullable(),
});

export const listCompanies = defineOperation({
  name: 'companies.list',
  write: false,
  input: () => z.object({}),
  output: () => listResult(companyRecord),
});

export const paymentMethodRecord = z.object({
  idFormaDePago: z.string(),
  descripcion: z.string().nullable(),
  tipo: z.number().int().nullable().describe('1 cash, 2 card, 3 vouchers, 4 credit/other'),
  tipoDeCambio: money,
  visible: z.boolean(),
});

export const listPaymentMethods = defineOperation({
  name: 'paymentMethods.list',
  write: false,
  input: () => z.object({ ...paging(), search }),
  output: () => pageResult(paymentMethodRecord),
});

export const discountTypeRecord = z.object({
  idTipoDescuento: z.string(),
  descripcion: z.string().nullable(),
  descuento: money,
  maximoActivado: z.boolean().describe('when true, `descuento` is the highest percentage allowed'),
});

export const listDiscountTypes = defineOperation({
  name: 'discountTypes.list',
  write: false,
  input: () => z.object({}),
  output: () => listResult(discountTypeRecord),
});
