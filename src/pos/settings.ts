/** The branch's single-row settings tables, read inside the operation that depends on them. */
import type { PosDb } from './db.js';
import { flag } from './values.js';

export interface BranchSettings {
  /** configuracion.forzarmotivocancela: cancelling products needs a reason. */
  forceCancelReason: boolean;
  /** configuracion.nopermitircerrarturnocuentasabiertas */
  forbidCloseWithOpenAccounts: boolean;
  /** parametros.forzartipodescuento: a discount needs a discount type. */
  forceDiscountType: boolean;
}

export async function readSettings(db: PosDb): Promise<BranchSettings> {
  const [config, params] = await Promise.all([
    db.selectFrom('configuracion').select(['forzarmotivocancela', 'nopermitircerrarturnocuentasabiertas']).executeTakeFirst(),
    db.selectFrom('parametros').select('forzartipodescuento').executeTakeFirst(),
  ]);
  return {
    forceCancelReason: flag(config?.forzarmotivocancela),
    forbidCloseWithOpenAccounts: flag(config?.nopermitircerrarturnocuentasabiertas),
    forceDiscountType: flag(params?.forzartipodescuento),
  };
}
