import * as cashCut from '../../protocol/operations/cash-cut.js';
import * as ops from '../../protocol/operations/shifts.js';
import { route } from './route.js';

const tag = 'Shifts';

export const shiftRoutes = [
  route({
    operationId: 'listShifts',
    method: 'GET',
    url: '/turnos/:licenseKey',
    op: ops.listShifts,
    summary: 'List shifts',
    tag,
    from: 'query',
    envelope: 'page',
    jobId: true,
  }),
  route({
    operationId: 'openShift',
    method: 'POST',
    url: '/turnos_apertura/:licenseKey',
    op: ops.openShift,
    summary: 'Open a shift',
    tag,
    from: 'body',
    envelope: 'result',
    jobId: true,
  }),
  route({
    operationId: 'closeShift',
    method: 'POST',
    url: '/turnos_cierre/:licenseKey',
    op: ops.closeShift,
    summary: 'Close a shift and consolidate its accounts',
    tag,
    from: 'body',
    envelope: 'result',
    jobId: true,
  }),
  route({
    operationId: 'shiftCashCut',
    method: 'GET',
    url: '/turnos/:licenseKey/:idTurno/corte',
    op: cashCut.cashCut,
    summary: "A shift's cash cut, open or closed, as Soft Restaurant adds it up",
    tag,
    from: 'query',
    pathInput: ['idTurno'],
    envelope: 'result',
    jobId: true,
  }),
];
