/** Attendance (registroasistencias): who clocked in and out, waiters and users alike. */
import { z } from 'zod';
import { booleanQuery, dateFilter, integerQuery, localDateTime, pageResult, paging, search } from '../common.js';
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
  duracionMinutos: z.number().int().describe('whole minutes (rounded down) from entrada to salida, or to the agent\'s now while abierta; never negative'),
  idMovto: z.string().nullable().describe('registroasistencias.idmovto'),
});

export const listAttendance = defineOperation({
  name: 'attendance.list',
  write: false,
  input: z.object({
    ...paging(MAX_ATTENDANCE_PAGE_SIZE),
    search: search.describe('partial, case-insensitive match on the employee id or name'),
    entradaStart: dateFilter.optional().describe('entrada at or after; ISO 8601, without offset = branch local time'),
    entradaEnd: dateFilter.optional().describe('entrada at or before; takes in all the value names: a date alone that whole day, 14:05 that whole minute'),
    dayStartHour: integerQuery
      .pipe(z.number().int().min(0).max(23))
      .default(0)
      .describe(
        'only when neither entradaStart nor entradaEnd is sent: the window is the operational day [today at this hour, tomorrow at this hour), ' +
          'starting yesterday when now is before this hour',
      ),
    tipo: z
      .enum(['1', '2'])
      .transform(Number)
      .or(z.union([z.literal(TIPO_MESERO), z.literal(TIPO_USUARIO)]))
      .optional()
      .describe('1 = waiters, 2 = users'),
    abiertas: booleanQuery.optional().describe('true: only records without salida; false: only records with salida'),
  }),
  output: pageResult(attendanceRecord)
    .extend({
      entradaStart: localDateTime.nullable().describe('first instant of the window applied (inclusive); null when open-ended (only entradaEnd sent)'),
      entradaEnd: localDateTime
        .nullable()
        .describe(
          'first instant after the window applied (exclusive): the end of the operational day, the midnight after a date sent alone, ' +
            'or the end of the minute or second a time names; null when open-ended (only entradaStart sent)',
        ),
    })
    .describe('records whose entrada falls in the window [entradaStart, entradaEnd), by entrada, then idEmpleado'),
});
