/** Attendance reads. Each function is one operation of protocol/operations/attendance.ts. */
import type { ExpressionBuilder } from 'kysely';
import { dateFilterBound, DEFAULT_DAY_START_HOUR } from '../../protocol/common.js';
import * as ops from '../../protocol/operations/attendance.js';
import { TIPO_MESERO, TIPO_USUARIO } from '../../protocol/operations/attendance.js';
import { likeContains } from '../sql-dialect.js';
import { implement } from '../operation.js';
import { selectPage } from '../paging.js';
import type { PosDatabase } from '../schema.js';
import type { Registroasistencias } from '../schema-softrestaurant.js';
import { int, localIso, text } from '../values.js';
import { lastSecondOf, operationalDay } from '../operational-day.js';

type Attendance = ExpressionBuilder<PosDatabase & { r: Registroasistencias }, 'r'>;

/**
 * The employee's name by tipo, from correlated subqueries rather than joins: `meseros.idmesero`
 * is not a key (it can repeat across companies) and a join would repeat the attendance row.
 */
function employeeName(eb: Attendance) {
  return eb
    .case()
    .when('r.tipo', '=', TIPO_MESERO)
    .then(
      eb
        .selectFrom('meseros as m')
        .select((s) => s.fn.max('m.nombre').as('nombre'))
        .whereRef('m.idmesero', '=', 'r.idempleado'),
    )
    .when('r.tipo', '=', TIPO_USUARIO)
    .then(eb.selectFrom('usuarios as u').select('u.nombre').whereRef('u.usuario', '=', 'r.idempleado'))
    .end();
}

type Bound = ReturnType<typeof dateFilterBound>;

interface Window {
  start: Bound;
  end: Bound;
  /** What the response says was applied: a bound as received, or the operational day's. */
  applied: { entradaStart: string; entradaEnd: string };
}

/**
 * The seed's window: the bounds sent, each echoed exactly as received; a bound not sent is the
 * current operational day's. `dayStartHour` only applies when neither is sent; with one bound
 * sent, the other comes from the default operational day.
 */
function entradaWindow(now: Date, input: { entradaStart?: string; entradaEnd?: string; dayStartHour: number }): Window {
  const neither = input.entradaStart === undefined && input.entradaEnd === undefined;
  const day = operationalDay(now, neither ? input.dayStartHour : DEFAULT_DAY_START_HOUR);
  return {
    start: input.entradaStart === undefined ? { op: '>=', at: day.start } : dateFilterBound(input.entradaStart, 'start'),
    end: input.entradaEnd === undefined ? { op: '<', at: day.end } : dateFilterBound(input.entradaEnd, 'end'),
    applied: {
      entradaStart: input.entradaStart ?? localIso(day.start)!,
      entradaEnd: input.entradaEnd ?? localIso(lastSecondOf(day))!,
    },
  };
}

const MINUTE_MS = 60_000;

function minutesBetween(from: Date, to: Date): number {
  return Math.max(0, Math.floor((to.getTime() - from.getTime()) / MINUTE_MS));
}

export const listAttendance = implement(ops.listAttendance, async (ctx, input) => {
  const window = entradaWindow(ctx.now, input);
  let query = ctx.db
    .selectFrom('registroasistencias as r')
    .select((eb) => ['r.idmovto', 'r.idempleado', 'r.tipo', 'r.entrada', 'r.salida', employeeName(eb).as('nombre')])
    .where('r.entrada', window.start.op, window.start.at)
    .where('r.entrada', window.end.op, window.end.at)
    .orderBy('r.idempleado')
    .orderBy('r.entrada')
    .orderBy('r.idmovto');
  if (input.tipo !== undefined) query = query.where('r.tipo', '=', input.tipo);
  if (input.abiertas !== undefined) query = query.where('r.salida', input.abiertas ? 'is' : 'is not', null);
  const { search } = input;
  if (search) query = query.where((eb) => eb.or([likeContains(eb.ref('r.idempleado'), search), likeContains(employeeName(eb), search)]));

  const page = await selectPage(query, input, (r) => {
    // The window bounds entrada, so rows without one never get here.
    const entrada = r.entrada as Date;
    return {
      idEmpleado: text(r.idempleado) ?? '',
      nombre: text(r.nombre),
      tipo: int(r.tipo),
      entrada: localIso(entrada)!,
      salida: localIso(r.salida),
      abierta: r.salida === null,
      duracionMinutos: r.salida === null ? null : minutesBetween(entrada, r.salida),
      idMovto: text(r.idmovto),
    };
  });
  return { ...page, ...window.applied };
});
