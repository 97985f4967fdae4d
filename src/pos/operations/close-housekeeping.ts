/**
 * What Soft Restaurant's shift close does beyond the shift's own accounts
 * (sr-traces/shift-close-flow.tsv), done by ours too so that a branch closing through the API
 * leaves SR's screens as its own close would: card-terminal log rows marked processed (row 107),
 * reservations of the past expired (134-135), waiters' notifications archived (138-139).
 */
import type { PosContext } from '../context.js';
import { loosely } from '../schema.js';

/**
 * Row 107: card-terminal log rows of an account (`tempnumcheque` > 0) that never got an approval
 * code, whatever their shift, are marked processed.
 */
async function settleUnapprovedCardLogs(ctx: PosContext): Promise<void> {
  const { schema } = ctx;
  if (!['procesado', 'tempnumcheque', 'approvalcode'].every((c) => schema.has('bitacoratarjetacredito', c))) return;
  await ctx.db
    .updateTable('bitacoratarjetacredito')
    .set({ procesado: true })
    .where('tempnumcheque', '>', 0)
    // SR's datalength(approvalcode) = 0: empty, where `= ''` would also take blanks on SQL Server.
    .where((eb) => eb(eb.fn('octet_length', [eb.ref('approvalcode')]), '=', 0))
    .execute();
}

/**
 * Rows 134-135: reservations due by the close that were pending or confirmed (estatus 1, 2) go
 * to 0; those in 3 go to 4. What the codes mean is SR's; the statements are its own.
 */
async function expireReservations(ctx: PosContext): Promise<void> {
  if (!ctx.schema.has('reservaciones', 'estatus') || !ctx.schema.has('reservaciones', 'fechareserva')) return;
  await ctx.db
    .updateTable('reservaciones')
    .set({ estatus: 0 })
    .where((eb) => eb.or([eb('estatus', '=', 1), eb('estatus', '=', 2)]))
    .where('fechareserva', '<=', ctx.now)
    .execute();
  await ctx.db.updateTable('reservaciones').set({ estatus: 4 }).where('estatus', '=', 3).where('fechareserva', '<=', ctx.now).execute();
}

/** Notifications per statement: one parameter each, under SQL Server's 2,100. */
const NOTIFICATIONS_PER_STATEMENT = 1000;

/**
 * Rows 138-139: every pending notification moves to the archive, with every column SR copies.
 * SR copies the whole table and then empties it; here exactly the rows read (and locked) are
 * copied and deleted, so one a terminal adds meanwhile waits for the next close.
 */
async function archiveNotifications(ctx: PosContext): Promise<void> {
  const { schema } = ctx;
  if (!schema.hasTable('tempnotificaciones') || !schema.hasTable('notificaciones')) return;
  const pending = await ctx.db.selectFrom('tempnotificaciones').select('id_notificacion').forUpdate().execute();
  const columns = schema.sharedColumns('tempnotificaciones', 'notificaciones', ['id_notificacion']);
  const ids = pending.map((p) => p.id_notificacion);
  for (let i = 0; i < ids.length; i += NOTIFICATIONS_PER_STATEMENT) {
    const chunk = ids.slice(i, i + NOTIFICATIONS_PER_STATEMENT);
    const db = loosely(ctx.db);
    await db
      .insertInto('notificaciones')
      .columns(columns)
      .expression(db.selectFrom('tempnotificaciones').select(columns).where('id_notificacion', 'in', chunk))
      .execute();
    await ctx.db.deleteFrom('tempnotificaciones').where('id_notificacion', 'in', chunk).execute();
  }
}

export async function closeHousekeeping(ctx: PosContext): Promise<void> {
  await settleUnapprovedCardLogs(ctx);
  await expireReservations(ctx);
  await archiveNotifications(ctx);
}
