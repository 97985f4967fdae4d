/**
 * Replacing a product (products.update): its catalogue row, its price and flags for one company,
 * and what Soft Restaurant keeps in step with a price: the price log, the modifier price of a
 * product that is its own modifier, the system log and National Soft's cloud sync mark.
 */
import { randomUUID } from 'node:crypto';
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/products.js';
import { logEvent } from '../audit.js';
import type { PosContext } from '../context.js';
import { implement } from '../operation.js';
import { Dec, precioSinImpuestos } from '../totals.js';
import { amount, dec, int, text } from '../values.js';
import { markForSync, SYNC_ENTITY_PRODUCT, SYNC_UPDATE } from '../sync-marks.js';
import { requireCompany, requireUser } from './account.js';

/** Locks the product row (UPDLOCK/FOR UPDATE) before anything about it is read. */
async function lockProduct(ctx: PosContext, idProducto: string): Promise<{ idProducto: string; workspaceId: string | null | undefined }> {
  const hasWorkspace = ctx.schema.has('productos', 'WorkspaceId');
  const row = await ctx.db
    .selectFrom('productos')
    .select('idproducto')
    .$if(hasWorkspace, (q) => q.select('WorkspaceId'))
    .where('idproducto', '=', idProducto)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new PosError('product_not_found', 'The branch has no product with the id in idProducto.', { field: 'idProducto' });
  return {
    idProducto: text(row.idproducto) ?? idProducto,
    workspaceId: hasWorkspace ? ((row as { WorkspaceId?: string | null }).WorkspaceId ?? null) : undefined,
  };
}

/**
 * The product's own WorkspaceId, the key its sync mark points at. A product SR created before
 * the column existed may have none: it gets one, kept on the product, so every later mark
 * points at the same product. Undefined where the installation has no such column (SR 10).
 */
async function productWorkspaceId(ctx: PosContext, idProducto: string, current: string | null | undefined): Promise<string | undefined> {
  if (current === undefined) return undefined;
  if (current !== null) return current;
  const assigned = randomUUID();
  await ctx.db.updateTable('productos').set({ WorkspaceId: assigned }).where('idproducto', '=', idProducto).execute();
  return assigned;
}

/**
 * The product's price row for the company, locked. A product without one is not on that
 * company's menu: the API lists products per company from these rows, and creating one would
 * mean inventing some seventy columns (day prices, points, kitchen area) SR fills on its own screen.
 */
async function lockCompanyPrice(ctx: PosContext, idProducto: string, idEmpresa: string): Promise<{ precio: string | null }> {
  const row = await ctx.db
    .selectFrom('productosdetalle')
    .select('precio')
    .where('idproducto', '=', idProducto)
    .where('idempresa', '=', idEmpresa)
    .forUpdate()
    .executeTakeFirst();
  if (!row) {
    throw new PosError('product_not_found', 'The product in idProducto has no price for the company in idEmpresa.', { fields: ['idProducto', 'idEmpresa'] });
  }
  return { precio: row.precio === null ? null : dec(row.precio).toFixed(4) };
}

/** The group as the branch spells it, and its classification. */
async function requireGroup(ctx: PosContext, idGrupo: string): Promise<{ idGrupo: string; clasificacion: number | null }> {
  const group = await ctx.db.selectFrom('grupos').select(['idgrupo', 'clasificacion']).where('idgrupo', '=', idGrupo).executeTakeFirst();
  if (!group) throw new PosError('group_not_found', 'The branch has no product group with the id in idGrupo.', { field: 'idGrupo' });
  return { idGrupo: text(group.idgrupo) ?? idGrupo, clasificacion: int(group.clasificacion) };
}

export const updateProduct = implement(ops.updateProduct, async (ctx, input) => {
  // Every id is written as the branch spells it, whatever look-alike the collation matched.
  const product = await lockProduct(ctx, input.idProducto);
  const { idProducto } = product;
  const idEmpresa = await requireCompany(ctx, input.idEmpresa);
  const before = await lockCompanyPrice(ctx, idProducto, idEmpresa);
  const { idGrupo, clasificacion } = await requireGroup(ctx, input.idGrupo);
  const usuario = await requireUser(ctx, input.usuario);

  const precio = new Dec(input.precio).toFixed(4);
  const taxes = [input.impuesto1, input.impuesto2, input.impuesto3].map((t) => new Dec(t).toFixed(2)) as [string, string, string];
  const sinImpuestos = precioSinImpuestos(precio, ...taxes).toFixed(4);
  const precioCambiado = before.precio === null || !dec(before.precio).eq(precio);

  await ctx.db
    .updateTable('productos')
    .set(
      ctx.schema.fitRow('productos', {
        descripcion: input.descripcionProducto,
        idgrupo: idGrupo,
        nombrecorto: input.nombreCorto,
        visible_menu: input.visibleMenu,
      }),
    )
    .where('idproducto', '=', idProducto)
    .execute();
  await ctx.db
    .updateTable('productosdetalle')
    .set(
      ctx.schema.fitRow('productosdetalle', {
        precio,
        preciosinimpuestos: sinImpuestos,
        impuesto1: taxes[0],
        impuesto2: taxes[1],
        impuesto3: taxes[2],
        bloqueado: input.bloqueado,
        permitirprodcompenmodif: input.permitirprodcompenmodif,
      }),
    )
    .where('idproducto', '=', idProducto)
    .where('idempresa', '=', idEmpresa)
    .execute();
  // SR keeps the price of a product offered as a modifier of itself equal to the product's: the
  // company's modifier rows and those of no company, which every company shares (as new-lines.ts reads them).
  await ctx.db
    .updateTable('modificadores')
    .set({ precio })
    .where('idproducto', '=', idProducto)
    .where('idmodificador', '=', idProducto)
    .where((eb) => eb.or([eb('idempresa', '=', idEmpresa), eb('idempresa', 'is', null)]))
    .execute();
  if (precioCambiado) {
    await ctx.db
      .insertInto('logcambioprecios')
      .values(
        ctx.schema.completeRow('logcambioprecios', {
          idproducto: idProducto,
          precioanterior: before.precio,
          precionuevo: precio,
          fecha: ctx.now,
          usuario,
          idempresa: idEmpresa,
        }),
      )
      .execute();
  }
  const priceText = precioCambiado
    ? `Precio: ${before.precio === null ? '-' : dec(before.precio).toFixed(2)} -> ${dec(precio).toFixed(2)}`
    : `Precio: ${dec(precio).toFixed(2)}`;
  await logEvent(ctx, {
    usuario,
    evento: 'Catálogo - Modificación de producto',
    valores: `Producto: ${idProducto} ${input.descripcionProducto}, Empresa: ${idEmpresa}, ${priceText}`,
    idempresa: idEmpresa,
  });
  const workspaceId = await productWorkspaceId(ctx, idProducto, product.workspaceId);
  if (workspaceId !== undefined) await markForSync(ctx, SYNC_ENTITY_PRODUCT, workspaceId, SYNC_UPDATE);

  return {
    idProducto,
    idEmpresa,
    descripcionProducto: input.descripcionProducto,
    idGrupo,
    clasificacion,
    nombreCorto: text(input.nombreCorto),
    visibleMenu: input.visibleMenu,
    precio: amount(precio, 4),
    precioSinImpuestos: amount(sinImpuestos, 4),
    impuesto1: amount(taxes[0], 4),
    impuesto2: amount(taxes[1], 4),
    impuesto3: amount(taxes[2], 4),
    bloqueado: input.bloqueado,
    permitirprodcompenmodif: input.permitirprodcompenmodif,
    precioAnterior: before.precio === null ? null : amount(before.precio, 4),
    precioCambiado,
  };
});
