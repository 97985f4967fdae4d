/**
 * The branch's single-row settings tables, read inside the operation that depends on them. A
 * setting an installation does not have reads as Soft Restaurant's default (off, or the value
 * the traces show).
 */
import { readOnce, type PosContext } from './context.js';
import { flag, int } from './values.js';

export interface BranchSettings {
  /** configuracion.forzarmotivocancela: cancelling products needs a reason. */
  forceCancelReason: boolean;
  /** configuracion.nopermitircerrarturnocuentasabiertas */
  forbidCloseWithOpenAccounts: boolean;
  /** parametros.forzartipodescuento: a discount needs a discount type. */
  forceDiscountType: boolean;
  /**
   * parametros3.forzardescuento, SR 11's forced-discount setting: the discounts answer it as
   * `forzarDescuento`, as it is, and never block on it (seed).
   */
  forceDiscount: boolean;
  /** configuracion.nodescargarinventario: a shift close leaves stock alone. */
  noInventoryDeduction: boolean;
}

type SettingsContext = Pick<PosContext, 'db' | 'schema'>;

export function readSettings(ctx: SettingsContext): Promise<BranchSettings> {
  return readOnce(ctx, 'settings', () => read(ctx));
}

async function read(ctx: SettingsContext): Promise<BranchSettings> {
  const { db, schema } = ctx;
  const [config, params, params3] = await Promise.all([
    db
      .selectFrom('configuracion')
      .select(['forzarmotivocancela', 'nopermitircerrarturnocuentasabiertas'])
      .$if(schema.has('configuracion', 'nodescargarinventario'), (q) => q.select('nodescargarinventario'))
      .executeTakeFirst(),
    db.selectFrom('parametros').select('forzartipodescuento').executeTakeFirst(),
    readParametros3(ctx),
  ]);
  return {
    forceCancelReason: flag(config?.forzarmotivocancela),
    forbidCloseWithOpenAccounts: flag(config?.nopermitircerrarturnocuentasabiertas),
    forceDiscountType: flag(params?.forzartipodescuento),
    forceDiscount: flag(params3?.forzardescuento),
    noInventoryDeduction: flag((config as { nodescargarinventario?: boolean | null } | undefined)?.nodescargarinventario),
  };
}

/** parametros3.forzardescuento, when the installation has it. */
async function readParametros3(ctx: SettingsContext): Promise<{ forzardescuento?: boolean } | undefined> {
  if (!ctx.schema.has('parametros3', 'forzardescuento')) return undefined;
  return ctx.db.selectFrom('parametros3').select('forzardescuento').executeTakeFirst();
}

/**
 * The kitchen priority of the next lines sent to production (order-lifecycle rows 225-229): SR
 * reads `parametros.monitornivelprioridad` (how many levels) and `monitorprioridadactual`,
 * moves to the next level and marks the lines with its letter, 'A' for level 1. How SR cycles
 * is not in the traces; we assume level after level, back to 1 after the last.
 */
export async function nextProductionPriority(ctx: SettingsContext): Promise<string> {
  if (!ctx.schema.has('parametros', 'monitorprioridadactual')) return 'A';
  const row = await ctx.db.selectFrom('parametros').select(['monitornivelprioridad', 'monitorprioridadactual']).forUpdate().executeTakeFirst();
  const levels = Math.max(1, int(row?.monitornivelprioridad) ?? 1);
  const next = ((int(row?.monitorprioridadactual) ?? 0) % levels) + 1;
  await ctx.db.updateTable('parametros').set({ monitorprioridadactual: next }).execute();
  return String.fromCharCode(64 + Math.min(next, 26));
}
