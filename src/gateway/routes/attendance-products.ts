import * as attendance from '../../protocol/operations/attendance.js';
import * as products from '../../protocol/operations/products.js';
import { route } from './route.js';

export const attendanceProductRoutes = [
  route({
    operationId: 'listAttendance',
    method: 'GET',
    url: '/asistencias/:licenseKey',
    op: attendance.listAttendance,
    summary: 'List attendance records',
    tag: 'Attendance',
    from: 'query',
    envelope: 'page',
    jobId: true,
  }),
  route({
    operationId: 'updateProduct',
    method: 'PUT',
    url: '/productos/:licenseKey/:idProducto',
    op: products.updateProduct,
    summary: 'Replace a product and its price for one company',
    tag: 'Catalogues',
    from: 'body',
    pathInput: ['idProducto'],
    envelope: 'result',
    jobId: true,
  }),
];
