/**
 * What every write on an open account shares: taking the account's row lock before reading
 * anything it checks, the open-account rule, reading its lines with their classification, and
 * storing the totals recomputed from scratch (docs/totals.md: nothing is accumulated).
 */
import type { Decimal } from 'decimal.js';
import { PosError } from '../../protocol/errors.js';
import type { PosContext } from '../context.js';
import { openShiftFor } from '../stations.js';
import { computeTotals, Dec, totalsToApi, totalsToHeaderColumns, type AccountTotals, type ApiTotales, type Clasificacion, type TotalsLine } from '../totals.js';
import { sameKey, dec, flag, int, text } from '../values.js';
import { handheldDevicesInUse, updateHandheldTotals } from './handheld-accounts.js';

export const API_USER = 'API';

export interface OpenAccount {
  folio: number;
  mesa: string;
  idmesero: string;
  estacion: string;
  idempresa: string;
  seriefolio: string;
  tipodeservicio: number;
  /** The general discount percentage g. */
  descuento: string;
}

/** An account's header as a settlement reads it: what it is, and where it is in its life. */
export interface LockedAccount extends OpenAccount {
  numcheque: number;
  impresiones: number;
  reabiertas: number;
  pagado: boolean;
  cancelado: boolean;
  impreso: boolean;
  cuentaenuso: boolean;
}

/** Locks the header (UPDLOCK/FOR UPDATE) before anything about it is read; 404 when there is none. */
export async function lockAccount(ctx: PosContext, folio: number): Promise<LockedAccount> {
  const row = await ctx.db
    .selectFrom('tempcheques')
    .select([
      'folio',
      'mesa',
      'idmesero',
      'estacion',
      'idempresa',
      'seriefolio',
      'tipodeservicio',
      'descuento',
      'numcheque',
      'impresiones',
      'reabiertas',
      'pagado',
      'cancelado',
      'impreso',
      'cuentaenuso',
    ])
    .where('folio', '=', folio)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new PosError('account_not_found', 'There is no open account with the folio in the request.', { folio });
  return {
    folio: Number(row.folio),
    mesa: text(row.mesa) ?? '',
    idmesero: text(row.idmesero) ?? '',
    estacion: text(row.estacion) ?? '',
    idempresa: text(row.idempresa) ?? '',
    seriefolio: text(row.seriefolio) ?? '',
    tipodeservicio: int(row.tipodeservicio) ?? 1,
    descuento: dec(row.descuento).toFixed(),
    numcheque: int(row.numcheque) ?? 0,
    impresiones: int(row.impresiones) ?? 0,
    reabiertas: int(row.reabiertas) ?? 0,
    pagado: flag(row.pagado),
    cancelado: flag(row.cancelado),
    impreso: flag(row.impreso),
    cuentaenuso: flag(row.cuentaenuso),
  };
}

/**
 * The shift open now at an account's station, its row held to the end of the transaction
 * (openShiftFor's `lock`), for a write that pays or cancels the account into it. Taken before the
 * account's own lock, in the order a close takes the two; the account's station and company never
 * change, so reading them unlocked first is safe.
 */
export async function lockShiftOfAccount(ctx: PosContext, folio: number): Promise<number | undefined> {
  const row = await ctx.db.selectFrom('tempcheques').select(['estacion', 'idempresa']).where('folio', '=', folio).executeTakeFirst();
  return row ? openShiftFor(ctx, text(row.estacion) ?? '', text(row.idempresa) ?? '', { lock: true }) : undefined;
}

/**
 * Payment rows on an unpaid account are a terminal's payment under way: paying over them would
 * count them twice, and cancelling would carry money taken into a cancelled account, which no
 * cash cut counts.
 */
export async function refusePaymentUnderWay(ctx: PosContext, folio: number): Promise<void> {
  const pending = await ctx.db.selectFrom('tempchequespagos').select('folio').where('folio', '=', folio).executeTakeFirst();
  if (pending) throw new PosError('account_not_open', `Account ${folio} has payments a terminal is recording.`, { folio, state: 'paying' });
}

/** The states that end what a write may do to an account, in the order they are reported. */
const CLOSED_STATES = [
  ['cancelado', 'is cancelled', 'cancelled'],
  ['pagado', 'is already paid', 'paid'],
  ['impreso', 'is printed and has not been reopened', 'printed'],
  ['cuentaenuso', 'is in use at a station', 'in_use'],
] as const;

/** Refuses (409 account_not_open) an account in any of the states named, saying which. */
export function refuseStates(account: LockedAccount, states: ReadonlyArray<(typeof CLOSED_STATES)[number][0]>): void {
  for (const [key, why, state] of CLOSED_STATES) {
    if (states.includes(key) && account[key]) throw new PosError('account_not_open', `Account ${account.folio} ${why}.`, { folio: account.folio, state });
  }
}

/** Locks the header (UPDLOCK/FOR UPDATE) and refuses an account that is not open, saying why. */
export async function lockOpenAccount(ctx: PosContext, folio: number): Promise<OpenAccount> {
  const account = await lockAccount(ctx, folio);
  refuseStates(account, ['cancelado', 'pagado', 'impreso', 'cuentaenuso']);
  return account;
}

/** A line's amounts as read from or written to the detail tables: decimals, never floats. */
export interface LineAmounts {
  cantidad: Decimal;
  precio: Decimal;
  impuesto1: Decimal;
  impuesto2: Decimal;
  impuesto3: Decimal;
  descuento: Decimal;
}

/** A stored line: what the totals need (a TotalsLine) and where it sits in the account. */
export interface StoredLine extends LineAmounts {
  clasificacion: Clasificacion;
  movimiento: number;
  idproducto: string;
  descripcion: string;
  modificador: boolean;
}

/** The account's lines in order, with each product's group classification (3 when unknown). */
export async function accountLines(ctx: PosContext, folio: number): Promise<StoredLine[]> {
  const rows = await ctx.db
    .selectFrom('tempcheqdet as d')
    .leftJoin('productos as p', 'p.idproducto', 'd.idproducto')
    .leftJoin('grupos as g', 'g.idgrupo', 'p.idgrupo')
    .select([
      'd.movimiento',
      'd.idproducto',
      'd.cantidad',
      'd.precio',
      'd.impuesto1',
      'd.impuesto2',
      'd.impuesto3',
      'd.descuento',
      'd.modificador',
      'p.descripcion',
      'g.clasificacion',
    ])
    .where('d.foliodet', '=', folio)
    .orderBy('d.movimiento')
    .execute();
  return rows.map((r) => ({
    movimiento: Number(r.movimiento),
    idproducto: text(r.idproducto) ?? '',
    descripcion: text(r.descripcion) ?? '',
    modificador: flag(r.modificador),
    ...totalsLineOf(r),
  }));
}

type RawNumber = string | number | null;

/** The inputs of the totals function, read from a stored line and its product's group. */
export function totalsLineOf(r: {
  cantidad: RawNumber;
  precio: RawNumber;
  impuesto1: RawNumber;
  impuesto2: RawNumber;
  impuesto3: RawNumber;
  descuento: RawNumber;
  clasificacion: RawNumber;
}): LineAmounts & { clasificacion: Clasificacion } {
  return {
    cantidad: dec(r.cantidad),
    precio: dec(r.precio),
    impuesto1: dec(r.impuesto1),
    impuesto2: dec(r.impuesto2),
    impuesto3: dec(r.impuesto3),
    descuento: dec(r.descuento),
    clasificacion: classification(r.clasificacion),
  };
}

/** Refuses (422 line_not_found) unless every requested (movimiento, idProducto) is a line of the account. */
export function requireLines(lines: readonly StoredLine[], requested: ReadonlyArray<{ movimiento: number; idProducto: string }>): void {
  const missing = requested.filter((r) => !lines.some((l) => l.movimiento === r.movimiento && sameKey(l.idproducto, r.idProducto)));
  if (missing.length === 0) return;
  const fields = missing.map((m) => `productos.${requested.indexOf(m)}`);
  throw new PosError('line_not_found', `The account has no line as named in ${fields.join(', ')}.`, { fields });
}

export function classification(value: string | number | null | undefined): Clasificacion {
  const n = Number(value);
  return n === 1 || n === 2 ? n : 3;
}

/**
 * The largest account kept to the cent, before anything is written: every amount of it is at most
 * its gross total with taxes, kept below 10^11 pesos (a JSON number holds every cent only up to
 * about 9×10^13, SR's money columns go to 9×10^14), and its items below 10^9
 * (`tempcheques.totalarticulos` is numeric(11,2)).
 */
export function refuseOutOfRange(totals: AccountTotals): void {
  // Both, and their size: the request's rates and prices are never negative, but a catalogue's may be.
  const amount = Dec.max(totals.totalSinDescuentoImp.abs(), totals.totalSinDescuento.abs());
  if (amount.lt(MAX_ACCOUNT_AMOUNT) && totals.totalArticulos.abs().lt(MAX_ACCOUNT_ITEMS)) return;
  throw new PosError(
    'value_out_of_range',
    `An account is kept below ${MAX_ACCOUNT_AMOUNT.toFixed()} pesos and ${MAX_ACCOUNT_ITEMS.toFixed()} items; these lines come to ${amount.toFixed(2)} pesos and ${totals.totalArticulos.toFixed()} items.`,
    {
      field: 'productos',
    },
  );
}

const MAX_ACCOUNT_AMOUNT = new Dec('1e11');
const MAX_ACCOUNT_ITEMS = new Dec('1e9');

/** Recomputes every total from the lines and the general percentage and stores them on the header (and the handheld devices' copy). */
export async function saveTotals(ctx: PosContext, folio: number, lines: readonly TotalsLine[], generalDiscount: string): Promise<ApiTotales> {
  const totals = computeTotals(lines, generalDiscount);
  refuseOutOfRange(totals);
  return storeTotals(ctx, folio, totals);
}

/** Stores totals already computed (and checked by refuseOutOfRange) on the header and the handheld devices' copy. */
export async function storeTotals(ctx: PosContext, folio: number, totals: AccountTotals): Promise<ApiTotales> {
  const columns = totalsToHeaderColumns(totals);
  await ctx.db.updateTable('tempcheques').set(ctx.schema.fitRow('tempcheques', columns)).where('folio', '=', folio).execute();
  if (await handheldDevicesInUse(ctx)) await updateHandheldTotals(ctx, folio, columns);
  return totalsToApi(totals);
}

/** The user a request names in `field` (default `usuario`), as the branch spells it; 422 user_not_found otherwise. */
export async function requireUser(ctx: PosContext, usuario: string | undefined, field = 'usuario'): Promise<string> {
  if (usuario === undefined) return API_USER;
  const found = await ctx.db.selectFrom('usuarios').select('usuario').where('usuario', '=', usuario).executeTakeFirst();
  if (!found) throw new PosError('user_not_found', `The branch has no user by the name in ${field}.`, { field });
  // The branch's own spelling, as requireStation keeps it.
  return text(found.usuario) ?? usuario;
}

/** A waiter the request names ('' for none), as the branch spells it; 422 waiter_not_found otherwise. */
export async function requireWaiter(ctx: PosContext, idMesero: string): Promise<string> {
  if (idMesero === '') return '';
  const found = await ctx.db.selectFrom('meseros').select('idmesero').where('idmesero', '=', idMesero).executeTakeFirst();
  if (!found) throw new PosError('waiter_not_found', 'The branch has no waiter with the id in idMesero.', { field: 'idMesero' });
  return text(found.idmesero) ?? idMesero;
}

/** The company a request names, as the branch spells it; 422 company_not_found otherwise. */
export async function requireCompany(ctx: PosContext, idEmpresa: string): Promise<string> {
  const found = await ctx.db.selectFrom('empresas').select('idempresa').where('idempresa', '=', idEmpresa).executeTakeFirst();
  if (!found) throw new PosError('company_not_found', 'The branch has no company with the id in idEmpresa.', { field: 'idEmpresa' });
  return text(found.idempresa) ?? idEmpresa;
}
