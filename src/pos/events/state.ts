/**
 * What the last detection poll saw, kept in the agent's `ba_event_*` tables so that a restart
 * neither loses nor invents a change. Read once when the agent starts, then held in memory (only
 * the poll writes these tables); each poll saves its changes in the transaction that queues its
 * events, so the state and the events never disagree.
 */
import { insertRows } from '../bulk-insert.js';
import type { PosDb } from '../schema.js';
import type { AccountState } from './diff.js';
import { accountKey, type AccountStatus } from './observe.js';

export interface ProductState {
  fingerprint: string;
  version: number;
}

export interface DetectionState {
  accounts: Map<string, AccountState>;
  openShifts: Set<number>;
  lastShiftId: number;
  productsFingerprint: string;
  /** By `idproducto|idempresa`. */
  products: Map<string, ProductState>;
}

export const productKey = (idproducto: string, idempresa: string) => `${idproducto}|${idempresa}`;

/** The saved state, or undefined before the first poll has taken its baseline. */
export async function loadState(db: PosDb): Promise<DetectionState | undefined> {
  const head = await db.selectFrom('ba_event_state').select(['products_fingerprint', 'last_shift_id']).where('id', '=', 1).executeTakeFirst();
  if (!head) return undefined;
  const [accounts, shifts, products] = await Promise.all([
    db.selectFrom('ba_event_accounts').select(['folio', 'opened', 'status', 'idturno', 'fingerprint', 'version']).execute(),
    db.selectFrom('ba_event_shifts').select('idturno').execute(),
    db.selectFrom('ba_event_products').select(['idproducto', 'idempresa', 'fingerprint', 'version']).execute(),
  ]);
  return {
    accounts: new Map(
      accounts.map((a) => [
        accountKey(Number(a.folio), a.opened),
        {
          folio: Number(a.folio),
          opened: a.opened,
          status: a.status as AccountStatus,
          idturno: a.idturno === null ? null : Number(a.idturno),
          fingerprint: a.fingerprint,
          version: a.version,
        },
      ]),
    ),
    openShifts: new Set(shifts.map((s) => Number(s.idturno))),
    lastShiftId: Number(head.last_shift_id),
    productsFingerprint: head.products_fingerprint,
    products: new Map(products.map((p) => [productKey(p.idproducto, p.idempresa), { fingerprint: p.fingerprint, version: p.version }])),
  };
}

/** What one poll changes in the state: rows to write and rows to forget. */
export interface StateChanges {
  accounts: { put: AccountState[]; remove: AccountState[] };
  openShifts: { add: number[]; remove: number[] };
  lastShiftId: number;
  productsFingerprint: string;
  products: Array<{ idproducto: string; idempresa: string } & ProductState>;
  now: Date;
}

/** Saves a poll's changes (inside the poll's transaction). */
export async function saveState(trx: PosDb, before: DetectionState | undefined, changes: StateChanges): Promise<void> {
  const head = { products_fingerprint: changes.productsFingerprint, last_shift_id: changes.lastShiftId, updated_at: changes.now };
  if (before) await trx.updateTable('ba_event_state').set(head).where('id', '=', 1).execute();
  else
    await trx
      .insertInto('ba_event_state')
      .values({ id: 1, ...head })
      .execute();

  const gone = [...changes.accounts.remove, ...changes.accounts.put.filter((a) => before?.accounts.has(accountKey(a.folio, a.opened)))];
  for (const a of gone) await trx.deleteFrom('ba_event_accounts').where('folio', '=', a.folio).where('opened', '=', a.opened).execute();
  await insertRows(trx, 'ba_event_accounts', changes.accounts.put);

  if (changes.openShifts.remove.length > 0) await trx.deleteFrom('ba_event_shifts').where('idturno', 'in', changes.openShifts.remove).execute();
  await insertRows(
    trx,
    'ba_event_shifts',
    changes.openShifts.add.map((idturno) => ({ idturno })),
  );

  const known = changes.products.filter((p) => before?.products.has(productKey(p.idproducto, p.idempresa)));
  for (const p of known) {
    await trx
      .updateTable('ba_event_products')
      .set({ fingerprint: p.fingerprint, version: p.version })
      .where('idproducto', '=', p.idproducto)
      .where('idempresa', '=', p.idempresa)
      .execute();
  }
  await insertRows(
    trx,
    'ba_event_products',
    changes.products.filter((p) => !known.includes(p)),
  );
}

/** The state after `changes`, for the next poll (once their transaction committed). */
export function applyChanges(before: DetectionState | undefined, changes: StateChanges): DetectionState {
  const state: DetectionState = before ?? { accounts: new Map(), openShifts: new Set(), lastShiftId: 0, productsFingerprint: '', products: new Map() };
  for (const a of changes.accounts.remove) state.accounts.delete(accountKey(a.folio, a.opened));
  for (const a of changes.accounts.put) state.accounts.set(accountKey(a.folio, a.opened), a);
  for (const id of changes.openShifts.remove) state.openShifts.delete(id);
  for (const id of changes.openShifts.add) state.openShifts.add(id);
  state.lastShiftId = changes.lastShiftId;
  state.productsFingerprint = changes.productsFingerprint;
  for (const p of changes.products) state.products.set(productKey(p.idproducto, p.idempresa), { fingerprint: p.fingerprint, version: p.version });
  return state;
}
