/** Catalogue reads. Each function is one operation of protocol/operations/catalogs.ts. */
import { sql, type ExpressionBuilder } from 'kysely';
import type { z } from 'zod';
import * as ops from '../../protocol/operations/catalogs.js';
import { likeContains } from '../sql-dialect.js';
import { implement } from '../operation.js';
import { selectPage } from '../paging.js';
import { mappedSegment, selectPageAcross } from '../segmented-paging.js';
import { accountsHoldingTable } from '../tables.js';
import type { PosContext } from '../context.js';
import type { PosDatabase } from '../schema.js';
import { amount, flag, int, text } from '../values.js';

export const CLASSIFICATION_NAMES: Record<number, string> = { 1: 'bebidas', 2: 'alimentos', 3: 'otros' };

/** Products with their company prices, as the product list shows them (by product, then company). */
export function productsQuery(ctx: Pick<PosContext, 'db'>) {
  return ctx.db
    .selectFrom('productos as p')
    .innerJoin('productosdetalle as d', 'd.idproducto', 'p.idproducto')
    .leftJoin('grupos as g', 'g.idgrupo', 'p.idgrupo')
    .select([
      'p.idproducto',
      'd.idempresa',
      'p.descripcion',
      'p.idgrupo',
      'g.clasificacion',
      'p.nombrecorto',
      'p.visible_menu',
      'd.precio',
      'd.preciosinimpuestos',
      'd.impuesto1',
      'd.impuesto2',
      'd.impuesto3',
      'd.bloqueado',
      'd.permitirprodcompenmodif',
    ])
    .orderBy('p.idproducto')
    .orderBy('d.idempresa');
}

type ProductRow = Awaited<ReturnType<ReturnType<typeof productsQuery>['execute']>>[number];

export function productToApi(r: ProductRow) {
  return {
    idProducto: r.idproducto,
    idEmpresa: r.idempresa ?? '',
    descripcionProducto: text(r.descripcion) ?? '',
    idGrupo: text(r.idgrupo),
    clasificacion: int(r.clasificacion),
    nombreCorto: text(r.nombrecorto),
    visibleMenu: flag(r.visible_menu),
    precio: amount(r.precio, 4),
    precioSinImpuestos: amount(r.preciosinimpuestos, 4),
    impuesto1: amount(r.impuesto1, 4),
    impuesto2: amount(r.impuesto2, 4),
    impuesto3: amount(r.impuesto3, 4),
    bloqueado: flag(r.bloqueado),
    permitirprodcompenmodif: flag(r.permitirprodcompenmodif),
  };
}

export const listProducts = implement(ops.listProducts, async (ctx, input) => {
  let query = productsQuery(ctx);
  const { search } = input;
  if (search) {
    query = query.where((eb) =>
      eb.or([likeContains(eb.ref('p.idproducto'), search), likeContains(eb.ref('p.descripcion'), search), likeContains(eb.ref('p.nombrecorto'), search)]),
    );
  }
  if (input.idGrupo !== undefined) query = query.where('p.idgrupo', '=', input.idGrupo);
  if (input.clasificacion !== undefined) query = query.where('g.clasificacion', '=', input.clasificacion);
  if (input.visibleMenu !== undefined) query = query.where('p.visible_menu', '=', input.visibleMenu);
  if (input.idEmpresa !== undefined) query = query.where('d.idempresa', '=', input.idEmpresa);

  return selectPage(query, input, productToApi);
});

/** Classifications whose number or Spanish name matches a free-text search. */
function classificationsMatching(search: string): number[] {
  const s = search.trim().toLowerCase();
  return Object.entries(CLASSIFICATION_NAMES)
    .filter(([n, name]) => n === s || name.includes(s))
    .map(([n]) => Number(n));
}

export const listGroups = implement(ops.listGroups, async (ctx, input) => {
  let query = ctx.db.selectFrom('grupos').select(['idgrupo', 'descripcion', 'clasificacion']).orderBy('idgrupo');
  const { search } = input;
  if (search) {
    const classes = classificationsMatching(search);
    query = query.where((eb: ExpressionBuilder<PosDatabase, 'grupos'>) =>
      eb.or([
        likeContains(eb.ref('idgrupo'), search),
        likeContains(eb.ref('descripcion'), search),
        ...(classes.length > 0 ? [eb('clasificacion', 'in', classes)] : []),
      ]),
    );
  }
  return selectPage(query, input, (r) => ({
    idGrupo: r.idgrupo,
    descripcion: text(r.descripcion),
    clasificacion: int(r.clasificacion),
  }));
});

type StationRecord = z.output<typeof ops.stationRecord>;

/**
 * The seed's stations: terminals, areas and tables, one page across the three. A table is taken
 * while an open account holds it (tables.ts); `folio` names that account.
 */
export const listStations = implement(ops.listStations, async (ctx, input) => {
  const search = input.search ?? '';
  const terminals = ctx.db
    .selectFrom('estaciones')
    .select(['idestacion', 'descripcion', 'serie', 'seriefolio', 'ip'])
    .$if(search !== '', (q) => q.where((eb) => eb.or([likeContains(eb.ref('idestacion'), search), likeContains(eb.ref('descripcion'), search)])))
    .orderBy('idestacion');
  const areas = ctx.db
    .selectFrom('areasrestaurant')
    .select(['idarearestaurant', 'descripcion', 'idtiposervicio'])
    .$if(search !== '', (q) => q.where((eb) => eb.or([likeContains(eb.ref('idarearestaurant'), search), likeContains(eb.ref('descripcion'), search)])))
    .orderBy('idarearestaurant');
  const tables = ctx.db
    .selectFrom('mesas as m')
    .select(['m.idmesa', 'm.idarearestaurant', 'm.personas'])
    .select(() =>
      accountsHoldingTable(ctx, sql.ref('m.idmesa'))
        .select((eb) => eb.fn.min('tc.folio').as('folio'))
        .as('folio'),
    )
    .$if(search !== '', (q) => q.where((eb) => likeContains(eb.ref('m.idmesa'), search)))
    // idmesa is not the key (one number can be in several areas): the key makes the page order total.
    .orderBy('m.idmesa')
    .orderBy('m.idmesasistema');
  return selectPageAcross<StationRecord>(
    [
      mappedSegment(terminals, (r) => ({
        tipo: 'terminal',
        idEstacion: r.idestacion,
        descripcion: text(r.descripcion),
        serie: text(r.serie),
        seriefolio: text(r.seriefolio),
        ip: text(r.ip),
      })),
      mappedSegment(areas, (r) => ({ tipo: 'area', idEstacion: r.idarearestaurant, descripcion: text(r.descripcion), tipoDeServicio: int(r.idtiposervicio) })),
      mappedSegment(tables, (r) => {
        const folio = int(r.folio);
        return {
          tipo: 'mesa',
          idEstacion: r.idmesa,
          descripcion: null,
          idArea: text(r.idarearestaurant),
          personas: int(r.personas),
          ocupada: folio !== null,
          folio,
        };
      }),
    ],
    input,
  );
});

export const listWaiters = implement(ops.listWaiters, async (ctx, input) => {
  let query = ctx.db.selectFrom('meseros').select(['idmesero', 'nombre', 'visible']).orderBy('idmesero');
  const { search } = input;
  if (search) {
    query = query.where((eb) => eb.or([likeContains(eb.ref('idmesero'), search), likeContains(eb.ref('nombre'), search)]));
  }
  const data = (await query.execute()).map((r) => ({ idMesero: r.idmesero, nombre: text(r.nombre), visible: flag(r.visible) }));
  return { totalResults: data.length, data };
});

export const listCompanies = implement(ops.listCompanies, async (ctx) => {
  const rows = await ctx.db.selectFrom('empresas').select(['idempresa', 'nombre', 'razonsocial', 'rfc']).orderBy('idempresa').execute();
  const data = rows.map((r) => ({ idEmpresa: r.idempresa, nombre: text(r.nombre), razonSocial: text(r.razonsocial), rfc: text(r.rfc) }));
  return { totalResults: data.length, data };
});

export const listPaymentMethods = implement(ops.listPaymentMethods, async (ctx, input) => {
  let query = ctx.db.selectFrom('formasdepago').select(['idformadepago', 'descripcion', 'tipo', 'tipodecambio', 'visible']).orderBy('idformadepago');
  const { search } = input;
  if (search) {
    query = query.where((eb) => eb.or([likeContains(eb.ref('idformadepago'), search), likeContains(eb.ref('descripcion'), search)]));
  }
  return selectPage(query, input, (r) => ({
    idFormaDePago: r.idformadepago,
    descripcion: text(r.descripcion),
    tipo: int(r.tipo),
    tipoDeCambio: amount(r.tipodecambio, 4),
    visible: flag(r.visible),
  }));
});

export const listDiscountTypes = implement(ops.listDiscountTypes, async (ctx) => {
  // Before SR 11 the maximum columns do not exist: no type has a ceiling there.
  const hasMaximum = ctx.schema.has('tipodescuento', 'activar_maximo_descuento');
  const rows = await ctx.db
    .selectFrom('tipodescuento')
    .select(['idtipodescuento', 'desc_tipodescuento', 'descuento'])
    .$if(hasMaximum, (q) => q.select('activar_maximo_descuento'))
    .where('Visible', '=', true)
    .orderBy('idtipodescuento')
    .execute();
  const data = rows.map((r) => ({
    idTipoDescuento: r.idtipodescuento,
    descripcion: text(r.desc_tipodescuento),
    descuento: amount(r.descuento, 4),
    maximoActivado: flag((r as { activar_maximo_descuento?: boolean }).activar_maximo_descuento),
  }));
  return { totalResults: data.length, data };
});
