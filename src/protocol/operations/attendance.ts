/** Attendance (registroasistencias): who clocked in and out, waiters and users alike. */
import { z } from 'zod';
import { booleanQuery, dateFilter, dayStartHour, DEFAULT_DAY_START_HOUR, localDateTime, pageResult, paging, search } from '../common.js';
import { defineOperation } from '../operation.js';

export const MAX_ATTENDANCE_PAGE_SIZE = 100;

/** `registroasistencias.tipo`: whose id `idempleado` is. */
export const TIPO_MESERO = 1;
export const TIPO_USUARIO = 2;

export const attendanceRecord = z.object({
  idEmpleado: z.string(),
  nombre: z.string().nullable().describe('meseros.nombre for tipo 1, usuarios.nombre for tipo 2; null when the employee is not found'),
  tipo: z.number().int().nullable().describe('1 = waiter (meseros.idmesero), 2 = user (usuarios.usuario)'),
  entrada: localDateTime,
  salida: localDateTime.nullable(),
  abierta: z.boolean().describe('no salida yet'),
  duracionMinutos: z.number().int().nullable().describe('whole minutes (rounded down) from entrada to salida, never negative; null while abierta'),
  idMovto: z.string().nullable().describe('registroasistencias.idmovto'),
});

export const listAttendance = defineOperation({
  name: 'attendance.list',
  write: false,
  input: () =>
    z.object({
      ...paging(MAX_ATTENDANCE_PAGE_SIZE),
      search: search.describe('partial, case-insensitive match on the employee id or name'),
      entradaStart: dateFilter
        .optional()
        .describe(
          `entrada at or after; ISO 8601, without offset = branch local time. Default: the start of the current operational day (${DEFAULT_DAY_START_HOUR}:00)`,
        ),
      entradaEnd: dateFilter
        .optional()
        .describe(
          'entrada at or before; takes in all the value names: a date alone that whole day, 14:05 that whole minute. ' +
            `Default: the end of the current operational day (${DEFAULT_DAY_START_HOUR - 1}:59:59 of its next day)`,
        ),
      dayStartHour: dayStartHour.describe(
        'only when neither entradaStart nor entradaEnd is sent: the window is the operational day starting at this hour (0-23, default ' +
          `${DEFAULT_DAY_START_HOUR}) today, or yesterday when now is before that hour. A single bound sent takes the other from the default operational day`,
      ),
      tipo: z
        .enum(['1', '2'])
        .transform(Number)
        .or(z.union([z.literal(TIPO_MESERO), z.literal(TIPO_USUARIO)]))
        .optional()
        .describe('1 = waiters, 2 = users'),
      abiertas: booleanQuery.optional().describe('true: only records without salida; false: only records with salida'),
    }),
  output: () =>
    pageResult(attendanceRecord)
      .extend({
        entradaStart: z.string().describe('the lower bound applied: as received, or the start of the operational day (branch time with offset)'),
        entradaEnd: z.string().describe('the upper bound applied, inclusive: as received, or the last second of the operational day (branch time with offset)'),
      })
      .describe('records whose entrada falls in the window, by idEmpleado, then entrada'),
});
