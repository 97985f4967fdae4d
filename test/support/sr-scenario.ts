/**
 * A shift lived through the API on a demo branch, step for step as Soft Restaurant's traces
 * live theirs, with the rows each step leaves kept for SR's statements to be checked against:
 * a shift opened at CAJA2 (order-lifecycle rows 31-40), a table account opened empty (87-127)
 * and given products (205-272), quick sales printed and paid at once (358-589), an account with
 * a cancelled line that a terminal then cancels whole, a second table account printed and paid
 * through the API as SR prints and pays one (358-365, 506-589), and the close (shift-close-flow). What SR
 * itself would have written meanwhile (card-terminal logs, orders, invoice lines, reservations,
 * notifications, stock left pending by an earlier close, a finished elaboration) is written
 * the way SR's tables hold it.
 */
import { randomUUID } from 'node:crypto';
import { loosely, type PosDb, type PosTable } from '../../src/pos/schema.js';
import type { ApiResponse, TestStack } from './stack.js';
import { orderBody } from './order-body.js';

export type Row = Record<string, unknown>;

export const COMPANY = '0000000001';
/** The declaration made at the close: cash in pesos, dollars, card. */
export const DECLARATION = [
  { idFormaDePago: 'EFE', importe: 400.5 },
  { idFormaDePago: 'USD', importe: 10 },
  { idFormaDePago: 'TAR', importe: 100 },
];

export interface Scenario {
  idTurno: number;
  /** The table account at table 4: stays open. */
  table: number;
  /** A quick sale at table 6 paid in dollars, and one without a table paid in cash. */
  quick: number;
  quickCash: number;
  /**
   * An account of one taco plate, two more and a cola whose first line was cancelled (the
   * others renumbered 1 and 2), then cancelled whole at a terminal.
   */
  cancelled: number;
  /** A table account at table 5, printed, then paid with dollars and pesos (with change) and a card tip. */
  paid: number;
  /** The rows each step left, by step and table: `opened.tempcheques`, `closed.movsinv`… */
  rows: Map<string, Row[]>;
  /** What SR's other modules write meanwhile, then the close with `DECLARATION`; its response. */
  close(): Promise<ApiResponse>;
}

const line = (idProducto: string, cantidad = 1, movimiento = 1) => ({ movimiento, idProducto, cantidad });

export function writer(stack: TestStack, branch: string) {
  return async (path: string, body: unknown): Promise<ApiResponse> => {
    const res = await stack.api('POST', path.replace('{lk}', branch), { body, headers: { 'idempotency-key': randomUUID() } });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };
}

/** Runs the scenario on a freshly seeded branch up to the close, which the result runs when asked. */
export async function liveShift(stack: TestStack, branch: string): Promise<Scenario> {
  const db = stack.pos.get(branch)!.db;
  const schema = stack.agents.get(branch)!.pos.schema;
  const write = writer(stack, branch);
  const rows = new Map<string, Row[]>();
  const keep = async (step: string, table: PosTable, where: (q: Query) => Query) => {
    if (!schema.hasTable(table)) return;
    rows.set(`${step}.${table}`, await where(select(db, table)).execute());
  };
  const insert = (table: PosTable, values: Row) => loosely(db).insertInto(table).values(schema.completeRow(table, values)).execute();

  await insert('registro_dispositivos', {
    id_dispositivo: 'tablet-1',
    nombre_dispositivo: 'Tableta mesero',
    fecha: new Date(),
    ultima_actualizacion: new Date(),
  });

  const idTurno = (await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: COMPANY, cajero: 'CAJERO', fondo: 500, idMesero: '02' })).body
    .idTurno as number;
  const shift = await select(db, 'turnos').where('idturno', '=', idTurno).executeTakeFirstOrThrow();
  await keep('opened', 'turnos', (q) => q.where('idturno', '=', idTurno));
  await keep('opened', 'bitacoraEnvioVentas', (q) => q.where('fechaapertura', '=', shift.apertura));
  await keep('opened', 'parametros', (q) => q);
  if (schema.has('turnos', 'WorkspaceId')) await keep('opened', 'nsplatformcontrol', (q) => q.where('WorkspaceId', '=', shift.WorkspaceId));

  const table = (await write('/temp_ordenes/{lk}', orderBody({ estacion: 'CAJA2', mesa: '4', idMesero: '01', noPersonas: 2 }))).body.folio as number;
  await keep('opened', 'tempcheques', (q) => q.where('folio', '=', table));
  await keep('opened', 'cuentas', (q) => q.where('foliocuenta', '=', table));
  await keep('opened', 'folios', (q) => q.where('serie', '=', 'B'));

  await write(`/temp_ordenes/{lk}/${table}/productos`, { productos: [line('3001'), line('1101', 2, 2)] });
  await keep('lines', 'tempcheques', (q) => q.where('folio', '=', table));
  await keep('lines', 'tempcheqdet', (q) => q.where('foliodet', '=', table));
  await keep('lines', 'productosenproduccion', (q) => q.where('folio', '=', table));
  await keep('lines', 'detallescuentas', (q) => q.where('clavemesa', '=', '4'));
  await keep('lines', 'cuentas', (q) => q.where('foliocuenta', '=', table));
  await keep('lines', 'folios', (q) => q.where('serie', '=', 'B'));
  await keep('lines', 'parametros', (q) => q);

  const quick = (
    await write('/ordenes/{lk}', orderBody({ estacion: 'CAJA2', mesa: '6', idFormaDePago: 'USD', productos: [line('3001', 2), line('1005', 1, 2)] }))
  ).body.folio as number;
  await keep('quick', 'tempcheques', (q) => q.where('folio', '=', quick));
  await keep('quick', 'tempchequespagos', (q) => q.where('folio', '=', quick));
  await keep('quick', 'folios', (q) => q.where('serie', '=', 'B'));
  const quickCash = (await write('/ordenes/{lk}', orderBody({ estacion: 'CAJA2', idFormaDePago: 'EFE', productos: [line('1001')] }))).body.folio as number;

  const cancelled = (await write('/temp_ordenes/{lk}', orderBody({ estacion: 'CAJA2', productos: [line('3001'), line('3001', 2, 2), line('1005', 1, 3)] })))
    .body.folio as number;
  await write(`/temp_ordenes/{lk}/${cancelled}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '3001' }], razon: 'Se enfrió' });

  const paid = (await write('/temp_ordenes/{lk}', orderBody({ estacion: 'CAJA2', mesa: '5', idMesero: '01', productos: [line('3001', 2)] }))).body
    .folio as number;
  await write(`/temp_ordenes/{lk}/${paid}/imprimir`, {});
  await keep('printed', 'cuentas', (q) => q.where('foliocuenta', '=', paid));
  const pagos = [
    { idFormaDePago: 'USD', importe: 5 },
    { idFormaDePago: 'EFE', importe: 50 },
    { idFormaDePago: 'TAR', importe: 50, propina: 8 },
  ];
  await write(`/temp_ordenes/{lk}/${paid}/pagar`, { pagos, usuario: 'CAJERO' });
  await keep('paid', 'tempcheques', (q) => q.where('folio', '=', paid));
  await keep('paid', 'tempchequespagos', (q) => q.where('folio', '=', paid));
  await keep('paid', 'folios', (q) => q.where('serie', '=', 'B'));

  const close = async (): Promise<ApiResponse> => {
    // What a terminal and SR's other modules write meanwhile.
    await db
      .updateTable('tempcheques')
      .set({ cancelado: true, usuariocancelo: 'ADMIN', fechacancelado: new Date(), razoncancelado: 'Se fue' })
      .where('folio', '=', cancelled)
      .execute();
    await insert('tempcheqpedidos', { foliocheque: quick, idpedido: 77 });
    await insert('tempbitacoratarjetacredito', { folio: quick, tempnumcheque: 5, approvalcode: '', importe: 10, fecha: new Date() });
    await insert('tempbitacoraeasygoband', { folio: quick, fecha: new Date(), idformadepago: 'USD', amount: 1, tipodecambio: 17.25 });
    await insert('tempnumerostarjetas', { foliocuenta: quick, idformadepago: 'USD', numerotarjeta: '4242', importe: 1 });
    await insert('tempfoliosfacturados', { idfactura: 91, folio: quick, porcentajefac: 100 });
    await insert('facturasmovtos', { idfactura: 91, foliodet: quick, movimiento: 1, importe: 1 });
    const past = new Date(Date.now() - 3_600_000);
    await insert('reservaciones', { idreservacion: 'R-PENDING', estatus: 1, fechareserva: past });
    await insert('reservaciones', { idreservacion: 'R-SEATED', estatus: 3, fechareserva: past });
    await insert('reservaciones', { idreservacion: 'R-TOMORROW', estatus: 1, fechareserva: new Date(Date.now() + 86_400_000) });
    await insert('tempnotificaciones', {
      estatus_notificacion: false,
      foliocuenta: table,
      idcuenta: '4',
      idmesero: '01',
      mensaje: 'Mesa 4 pide la cuenta',
      hora: past,
    });
    await insert('inventariopendiente', { fecha: past, idconcepto: 'SPV', idinsumo: 'CAFE', costo: 320, cantidad: -0.03, idalmacen: '01', idturno: 1 });
    await insert('inventariopendiente', { fecha: past, idconcepto: 'SPV', idinsumo: 'CAFE', costo: 320, cantidad: -1, idalmacen: '', idturno: 1 });
    await insert('insumoselaboracion', { idinsumo: 'PASTOR', cantidad: 1, status: 2, aplicado: false });

    const archived = [quick, quickCash, cancelled, paid];
    for (const [temp, column] of ARCHIVED_TEMP) await keep('before', temp, (q) => q.where(column, 'in', archived));
    await keep('before', 'tempcheques', (q) => q.where('folio', 'in', archived));
    await keep('before', 'tempnotificaciones', (q) => q);

    const response = await write('/turnos_cierre/{lk}', { idTurno, estacion: 'CAJA2', idEmpresa: COMPANY, declaracion: DECLARATION });
    const history = (await select(db, 'cheques').where('idturno', '=', idTurno).execute()).map((h) => Number(h.folio));
    await keep('closed', 'cheques', (q) => q.where('idturno', '=', idTurno));
    for (const [, column, table] of ARCHIVED_TEMP) await keep('closed', table, (q) => q.where(column, 'in', history));
    await keep('closed', 'facturasmovtos', (q) => q.where('idfactura', '=', 91));
    await keep('closed', 'mesas', (q) => q);
    await keep('closed', 'turnos', (q) => q.where('idturno', '=', idTurno));
    await keep('closed', 'folios', (q) => q.where('serie', '=', 'B'));
    await keep('closed', 'parametros', (q) => q);
    await keep('closed', 'movsinv', (q) => q);
    await keep('closed', 'reservaciones', (q) => q.where('idreservacion', 'in', ['R-PENDING', 'R-SEATED']));
    await keep('closed', 'notificaciones', (q) => q);
    await keep('closed', 'declaracioncajero', (q) => q.where('idturno', '=', idTurno));
    await keep('closed', 'bitacorasistema', (q) => q.where('valores', '=', `Turno: ${idTurno}`));
    if (schema.has('turnos', 'WorkspaceId')) await keep('closed', 'nsplatformcontrol', (q) => q.where('WorkspaceId', '=', shift.WorkspaceId));
    return response;
  };
  return { idTurno, table, quick, quickCash, cancelled, paid, rows, close };
}

/** The side tables a close archives: temporary table, its account column, history table. */
export const ARCHIVED_TEMP: ReadonlyArray<readonly [PosTable, string, PosTable]> = [
  ['tempcheqdet', 'foliodet', 'cheqdet'],
  ['tempchequespagos', 'folio', 'chequespagos'],
  ['tempcancela', 'foliocheque', 'cancela'],
  ['tempcheqpedidos', 'foliocheque', 'cheqpedidos'],
  ['tempbitacoratarjetacredito', 'folio', 'bitacoratarjetacredito'],
  ['tempbitacoraeasygoband', 'folio', 'bitacoraeasygoband'],
  ['tempnumerostarjetas', 'foliocuenta', 'numerostarjetas'],
  ['tempfoliosfacturados', 'folio', 'foliosfacturados'],
];

function select(db: PosDb, table: string) {
  return loosely(db).selectFrom(table).selectAll();
}
type Query = ReturnType<typeof select>;

/** A row's value by column name as SR spells it (SR's case and ours differ: `Usuarioapertura`). */
export function valueOf(row: Row, column: string): unknown {
  const key = Object.keys(row).find((k) => k.toLowerCase() === column.toLowerCase());
  return key === undefined ? undefined : row[key];
}
