/**
 * What a station's row (estaciones) decides about its sales: which shift they belong to, their
 * folio series and their restaurant area. A station the branch does not know is taken as its own
 * cash station with no series and no area.
 */
import type { Selectable } from 'kysely';
import { PosError } from '../protocol/errors.js';
import { readOnce, type PosContext } from './context.js';
import type { Estaciones } from './schema-softrestaurant.js';
import { sameKey, int, text } from './values.js';

export interface Station {
  id: string;
  /**
   * The station whose shift its sales belong to. A terminal whose `cajacomandero` names a cash
   * station sells on that station's shift (order-lifecycle rows 83-84, 200-201, 509-510: SR
   * reads it from DESKTOP-7 and looks the shift up at DESKTOP-1601QUU), unless its
   * `usarturnoestacion` asks for a shift of its own (our reading of its name: the traces show SR
   * reading it, not what it does).
   */
  shiftStation: string;
  /** `seriefolio`: the series of its orders and tickets. */
  serie: string;
  /** Its restaurant areas by service: 1 dine-in, 2 delivery, 3 quick sale. */
  areas: Record<1 | 2 | 3, string>;
}

export function stationOf(ctx: Pick<PosContext, 'db'>, estacion: string): Promise<Station & { known: boolean }> {
  return readOnce(ctx, `station:${estacion}`, () => read(ctx, estacion));
}

/**
 * The station a request names, as the branch spells it: a station the branch does not have is
 * refused (422 station_not_found), and what is written is the branch's own spelling, never a
 * look-alike the server's collation happens to match (a full-width ＣＡＪＡ１, another letter case).
 */
export async function requireStation(ctx: Pick<PosContext, 'db'>, estacion: string): Promise<Station> {
  const station = await stationOf(ctx, estacion);
  if (!station.known) throw new PosError('station_not_found', 'The branch has no station by the name in estacion.', { field: 'estacion' });
  return station;
}

const STATION_COLUMNS = [
  'idestacion',
  'cajacomandero',
  'usarturnoestacion',
  'seriefolio',
  'idarearestaurant',
  'idarearestaurantdomicilio',
  'idarearestaurantrapido',
] as const;
type StationRow = Pick<Selectable<Estaciones>, (typeof STATION_COLUMNS)[number]>;

async function read(ctx: Pick<PosContext, 'db'>, estacion: string): Promise<Station & { known: boolean }> {
  const row = await ctx.db.selectFrom('estaciones').select(STATION_COLUMNS).where('idestacion', '=', estacion).executeTakeFirst();
  return { known: row !== undefined, ...stationFrom(row, estacion) };
}

/** What a station's row decides, for `estacion` when the branch has no row for it. */
function stationFrom(row: StationRow | undefined, estacion: string): Station {
  const cash = text(row?.cajacomandero)?.trim() ?? '';
  const ownShift = (int(row?.usarturnoestacion) ?? 0) !== 0;
  const id = text(row?.idestacion) ?? estacion;
  return {
    id,
    shiftStation: cash !== '' && !ownShift ? cash : id,
    serie: text(row?.seriefolio)?.trim() ?? '',
    areas: {
      1: text(row?.idarearestaurant)?.trim() ?? '',
      2: text(row?.idarearestaurantdomicilio)?.trim() ?? '',
      3: text(row?.idarearestaurantrapido)?.trim() ?? '',
    },
  };
}

/**
 * The shift open now that a sale at `estacion` belongs to, found as SR's terminals find it: the
 * station's cash station's (`cajacomandero`, order-lifecycle rows 83, 200, 509; shift-close 13),
 * open, for no waiter (`idmesero=''`, order-lifecycle rows 4, 25, 27, 201, 433, 510; shift-close
 * 14, 41, 60).
 *
 * With `lock`, the shift's row is held (UPDLOCK/FOR UPDATE) to the end of the transaction, for a
 * write that puts an account into the shift (paid, cancelled): a close locks that row before it
 * moves the shift's accounts to history, so the write either commits before the close reads
 * them or, having waited, finds the shift closed. Without it, an account paid into a shift whose
 * close committed meanwhile stays in the temporary tables, and no later close moves it.
 */
export async function openShiftFor(
  ctx: Pick<PosContext, 'db'>,
  estacion: string,
  idEmpresa: string,
  options: { lock?: boolean } = {},
): Promise<number | undefined> {
  const station = await stationOf(ctx, estacion);
  const row = await ctx.db
    .selectFrom('turnos')
    .select('idturno')
    .where('idestacion', '=', station.shiftStation)
    .where('idempresa', '=', idEmpresa)
    .where('idmesero', '=', '')
    .where('cierre', 'is', null)
    .where('apertura', 'is not', null)
    .orderBy('idturno', 'desc')
    .$if(options.lock === true, (q) => q.forUpdate())
    .executeTakeFirst();
  return row ? Number(row.idturno) : undefined;
}

/**
 * The terminals that sell on `cashStation`'s shift (their `cajacomandero` names it), as station
 * ids: each station's shift station found as `stationOf` finds it for its sales, trimmed and
 * compared as it does. Compared in SQL instead (`ltrim(rtrim(...))`, which strips spaces only), a
 * terminal whose cash station was written with a no-break space or a tab sold on the shift while
 * it was open, but its sales made without a shift were never taken by a close (a probe: 89.00
 * left at shift 0 after the close).
 */
export async function terminalsOf(ctx: Pick<PosContext, 'db'>, cashStation: string): Promise<string[]> {
  const rows = await ctx.db.selectFrom('estaciones').select(STATION_COLUMNS).execute();
  return rows
    .map((row) => stationFrom(row, ''))
    .filter((s) => sameKey(s.shiftStation, cashStation) && !sameKey(s.id, cashStation))
    .map((s) => s.id);
}
