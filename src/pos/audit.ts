/** Soft Restaurant's system log (`bitacorasistema`): what SR itself writes for the same action. */
import type { PosContext } from './context.js';

export const SERVICE_NAMES: Record<number, string> = { 1: 'Comedor', 2: 'Domicilio', 3: 'Rápido' };

export interface AuditEvent {
  usuario: string;
  evento: string;
  valores: string;
  estacion?: string | null;
  idempresa?: string | null;
  seriefolio?: string | null;
  numcheque?: number | null;
}

/** An entry as SR writes one (shift-close row 229), with no user asking on another's behalf (`usuariosolicita` ''). */
export async function logEvent(ctx: PosContext, event: AuditEvent): Promise<void> {
  await ctx.db
    .insertInto('bitacorasistema')
    .values(ctx.schema.completeRow('bitacorasistema', { fecha: ctx.now, tipoalerta: 0, enviado: false, usuariosolicita: '', ...event }))
    .execute();
}
