/**
 * Reopening a printed, unpaid account: it takes lines and discounts again. SR counts reopenings
 * in `reabiertas` (its name; the traces do not show SR reopening) and the account keeps the
 * ticket number its first print gave it, so a second print does not number it again.
 */
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/settlement.js';
import { implement } from '../operation.js';
import { lockAccount, refuseStates, requireUser } from './account.js';

export const reopenAccount = implement(ops.reopenAccount, async (ctx, input) => {
  const account = await lockAccount(ctx, input.folio);
  refuseStates(account, ['cancelado', 'pagado', 'cuentaenuso']);
  if (!account.impreso)
    throw new PosError('account_not_open', `Account ${account.folio} is not printed: it is open already.`, { folio: account.folio, state: 'open' });
  await requireUser(ctx, input.usuario);
  const reabiertas = account.reabiertas + 1;
  await ctx.db.updateTable('tempcheques').set({ impreso: false, reabiertas }).where('folio', '=', account.folio).execute();
  return { folio: account.folio, reabiertas };
});
