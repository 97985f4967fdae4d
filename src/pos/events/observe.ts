/**
 * The detection poll's reads: three small statements, read committed, no lock hint, no
 * transaction, so a terminal never waits on the agent for more than a row's read. Each returns a
 * fingerprint to compare with the last poll's, not the records: those are read only for what
 * changed (records.ts).
 */
import { createHash } from 'node:crypto';
import type { PosDb } from '../schema.js';
import { HEADER_COLUMNS } from '../operations/order-records.js';
import { int } from '../values.js';

export type AccountStatus = 'abierta' | 'pagada' | 'cancelada';

export interface ObservedAccount {
  folio: number;
  /** tempcheques.fecha as ISO text ('' when null): with the folio it names the account. */
  opened: string;
  status: AccountStatus;
  idturno: number | null;
  fingerprint: string;
}

export interface ObservedShift {
  idturno: number;
  idturnointerno: number;
  open: boolean;
  /** apertura and cierre as ISO text: a shift reopened and closed again is a new change. */
  moment: string;
}

export const accountKey = (folio: number, opened: string) => `${folio}|${opened}`;

export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

export function openedText(fecha: Date | null): string {
  return fecha ? fecha.toISOString() : '';
}

/**
 * Every account in the temporary tables with a fingerprint of its header (flags, totals,
 * printing, payment) and of its lines. SR rewrites unchanged totals many times while an account
 * is on screen (order-lifecycle rows 313, 351, 461, 585): values are compared, never writes. The
 * lines are summarised per account; sums weighted by the line number also change when two lines
 * swap quantities, prices or discounts.
 */
export async function observeAccounts(db: PosDb): Promise<Map<string, ObservedAccount>> {
  const lines = db
    .selectFrom('tempcheqdet as d')
    .select((eb) => [
      'd.foliodet',
      eb.fn.countAll().as('lineas'),
      eb.fn.max('d.movimiento').as('ultimo'),
      eb.fn.sum('d.cantidad').as('cantidad'),
      eb.fn.sum(eb('d.cantidad', '*', eb.ref('d.precio'))).as('importe'),
      eb.fn.sum('d.descuento').as('descuento'),
      eb.fn.sum(eb('d.movimiento', '*', eb.ref('d.cantidad'))).as('mcantidad'),
      eb.fn.sum(eb('d.movimiento', '*', eb.ref('d.precio'))).as('mprecio'),
      eb.fn.sum(eb('d.movimiento', '*', eb.ref('d.descuento'))).as('mdescuento'),
    ])
    .groupBy('d.foliodet')
    .as('l');
  const rows = await db
    .selectFrom('tempcheques as h')
    .leftJoin(lines, 'l.foliodet', 'h.folio')
    .select(HEADER_COLUMNS.map((c) => `h.${c}` as const))
    .select(['l.lineas', 'l.ultimo', 'l.cantidad as lcantidad', 'l.importe', 'l.descuento as ldescuento', 'l.mcantidad', 'l.mprecio', 'l.mdescuento'])
    .execute();
  const observed = new Map<string, ObservedAccount>();
  for (const row of rows) {
    const folio = Number(row.folio);
    const opened = openedText(row.fecha);
    const status: AccountStatus = row.cancelado ? 'cancelada' : row.pagado ? 'pagada' : 'abierta';
    observed.set(accountKey(folio, opened), { folio, opened, status, idturno: int(row.idturno), fingerprint: fingerprintOf(Object.values(row)) });
  }
  return observed;
}

/**
 * The open shifts, those opened since `lastShiftId` (turnos.idturnointerno, an identity) even if
 * already closed, and the shifts last seen open, to tell which of them closed.
 */
export async function observeShifts(db: PosDb, lastShiftId: number, lastOpen: readonly number[]): Promise<ObservedShift[]> {
  const rows = await db
    .selectFrom('turnos')
    .select(['idturnointerno', 'idturno', 'apertura', 'cierre'])
    .where((eb) =>
      eb.or([eb('cierre', 'is', null), eb('idturnointerno', '>', lastShiftId), ...(lastOpen.length > 0 ? [eb('idturno', 'in', [...lastOpen])] : [])]),
    )
    .execute();
  return rows.map((r) => ({
    idturno: Number(r.idturno),
    idturnointerno: Number(r.idturnointerno),
    open: r.cierre === null && r.apertura !== null,
    moment: `${openedText(r.apertura)}/${openedText(r.cierre)}`,
  }));
}

/** One row summing every company price: when it moves, the products are compared one by one. */
export async function observeProducts(db: PosDb): Promise<string> {
  const row = await db
    .selectFrom('productosdetalle')
    .select((eb) => [
      eb.fn.countAll().as('n'),
      eb.fn.sum('precio').as('precio'),
      eb.fn.sum('preciosinimpuestos').as('preciosinimpuestos'),
      eb.fn.sum('impuesto1').as('impuesto1'),
      eb.fn.sum('impuesto2').as('impuesto2'),
      eb.fn.sum('impuesto3').as('impuesto3'),
      eb.fn.sum(eb.cast('bloqueado', 'integer')).as('bloqueados'),
    ])
    .executeTakeFirstOrThrow();
  return fingerprintOf(Object.values(row));
}
