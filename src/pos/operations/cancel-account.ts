/**
 * Cancelling a whole account: every line cancelled as a line cancellation cancels it (into
 * `tempcancela` with the reason and motive, its kitchen rows marked), the header kept with
 * `cancelado`, who, when and why (POS-SCHEMA.md, Account lifecycle), which frees its table. The
 * next shift close moves it to history like a paid one.
 */
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/settlement.js';
import { logEvent, SERVICE_NAMES } from '../audit.js';
import { implement } from '../operation.js';
import { text } from '../values.js';
import { accountLines, lockAccount, lockShiftOfAccount, refusePaymentUnderWay, refuseStates, requireUser, saveTotals } from './account.js';
import { removeLines, storedReason } from './cancel-lines.js';
import { dropHandheldCopy } from './handheld-accounts.js';

export const cancelAccount = implement(ops.cancelAccount, async (ctx, input) => {
  // In the shift open at its station now, so that this shift's close and cash cut count it.
  const idTurno = await lockShiftOfAccount(ctx, input.folio);
  const account = await lockAccount(ctx, input.folio);
  refuseStates(account, ['cancelado', 'pagado', 'cuentaenuso']);
  await refusePaymentUnderWay(ctx, account.folio);
  const usuario = await requireUser(ctx, input.usuario);
  let motive = '';
  if (input.idMotivoCancela !== undefined) {
    const found = !ctx.schema.hasTable('motivoscancelacion')
      ? undefined
      : await ctx.db.selectFrom('motivoscancelacion').select('idmotivocancela').where('idmotivocancela', '=', input.idMotivoCancela).executeTakeFirst();
    if (!found) throw new PosError('motive_not_found', 'The branch has no cancellation motive with the id in idMotivoCancela.', { field: 'idMotivoCancela' });
    motive = text(found.idmotivocancela) ?? input.idMotivoCancela;
  }
  const lines = await accountLines(ctx, account.folio);
  await removeLines(ctx, account, lines, storedReason(ctx, input.razon, account.mesa), usuario, motive);
  await saveTotals(ctx, account.folio, [], account.descuento);
  await ctx.db
    .updateTable('tempcheques')
    .set(
      ctx.schema.fitRow('tempcheques', {
        cancelado: true,
        usuariocancelo: usuario,
        fechacancelado: ctx.now,
        razoncancelado: input.razon,
        idmotivocancela: motive,
        ...(idTurno === undefined ? {} : { idturno: idTurno }),
      }),
    )
    .where('folio', '=', account.folio)
    .execute();
  await dropHandheldCopy(ctx, account);
  await logEvent(ctx, {
    usuario,
    evento: `${SERVICE_NAMES[account.tipodeservicio] ?? 'Comedor'} - Cancelación de cuenta`,
    valores: `Cuenta: ${account.mesa}, Folio: ${account.folio}, Razón: ${input.razon}`,
    estacion: account.estacion,
    idempresa: account.idempresa,
    seriefolio: account.seriefolio,
  });
  return { folio: account.folio, itemsCancelados: lines.length };
});
