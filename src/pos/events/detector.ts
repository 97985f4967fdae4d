/**
 * One detection poll: observe the fingerprints (observe.ts), compare them with what the last
 * poll saw (diff.ts), read the records of what changed (records.ts), tell API changes from the
 * terminals' (origins.ts), and queue the events with the new state in one transaction.
 *
 * An event's id is derived from what it reports (the account and how many events it has had, the
 * shift and its times, the product and its version), so a poll run again after a crash before
 * its commit makes the same ids: duplicates only ever carry the same id.
 */
import { createHash } from 'node:crypto';
import type { BranchEvent, EventType } from '../../protocol/events.js';
import type { PosContext } from '../context.js';
import type { PosDb } from '../schema.js';
import { byAccount, diffAccounts, diffShifts, eventsOfClosedAccount, type AccountChange, type AccountState } from './diff.js';
import { fingerprintOf, observeAccounts, observeShifts, tableSumsReader, type ObservedAccount, type ObservedShift, type TableSums } from './observe.js';
import { forgetOrigins, readOrigins, type Origin } from './origins.js';
import { queueEvents } from './outbox.js';
import { closedAccountKeys, closedOrders, openOrders, productRecords, shiftRecords, type ProductRecord } from './records.js';
import { applyChanges, loadState, productKey, saveState, type DetectionState, type StateChanges } from './state.js';

/**
 * A mark whose change no poll has found within this long is dropped: its write changed nothing
 * a poll sees. Until then it waits, because its write may have committed just after a poll read
 * the tables (the mark is read after them, so the reverse cannot happen).
 */
const ORIGIN_WAIT_MS = 60_000;

export type DetectorContext = Omit<PosContext, 'now' | 'afterCommit'>;

export function eventId(licenseKey: string, subject: string): string {
  return `evt_${createHash('sha256').update(`${licenseKey}|${subject}`).digest('base64url').slice(0, 32)}`;
}

/**
 * Who made the changes one poll found: the marks writes left (origins.ts), and the shift closes
 * made through the API lately. Every mark it matches is used up with the poll's commit.
 */
class Attribution {
  readonly used = new Set<number>();
  /** The job that closed shifts lately, when exactly one did: the accounts that left are its doing. */
  readonly closingJob: string | null;

  constructor(
    private readonly origins: Origin[],
    private readonly recentCloses: Map<number, { jobId: string; at: number }>,
    private readonly now: Date,
    private readonly licenseKey: string,
  ) {
    for (const [idturno, close] of recentCloses) if (now.getTime() - close.at > ORIGIN_WAIT_MS) recentCloses.delete(idturno);
    const closing = new Set([...origins.filter((o) => o.kind === 'cierre').map((o) => o.jobId), ...[...recentCloses.values()].map((c) => c.jobId)]);
    this.closingJob = closing.size === 1 ? [...closing][0]! : null;
  }

  jobOf(kind: Origin['kind'], entity: string | number | null): string | null {
    const marks = entity === null ? [] : this.origins.filter((o) => o.kind === kind && o.entity === String(entity));
    for (const m of marks) this.used.add(m.id);
    return marks.at(-1)?.jobId ?? null;
  }

  /** The job that closed shift `idturno`, remembered for the half of the close a later poll sees. */
  closeJob(idturno: number | null): string | null {
    if (idturno === null) return null;
    const jobId = this.jobOf('cierre', idturno) ?? this.recentCloses.get(idturno)?.jobId ?? null;
    if (jobId) this.recentCloses.set(idturno, { jobId, at: this.now.getTime() });
    return jobId;
  }

  event(type: EventType, subject: string, jobId: string | null, data: BranchEvent['data']): BranchEvent {
    return {
      id: eventId(this.licenseKey, `${type}|${subject}`),
      type,
      licenseKey: this.licenseKey,
      timestamp: this.now.toISOString(),
      origin: jobId ? 'api' : 'pos',
      jobId,
      data,
    };
  }
}

export class ChangeDetector {
  #state: DetectionState | undefined;
  #loaded = false;
  /**
   * Shift closes made through the API, by shift, for ORIGIN_WAIT_MS after a poll matched them:
   * the shift and the accounts a close moves are read by two statements, so one poll may see
   * half of a close and the next the other half. Memory only: a restart in between loses the
   * origin of that half, never an event.
   */
  readonly #recentCloses = new Map<number, { jobId: string; at: number }>();
  /** The sums (tableSumsReader) the state was last compared with; memory only. */
  #sums: TableSums | undefined;
  readonly #readSums: () => Promise<TableSums>;

  constructor(
    private readonly ctx: DetectorContext,
    private readonly licenseKey: string,
  ) {
    this.#readSums = tableSumsReader(ctx.db);
  }

  /** Runs one poll; how many events it queued. The first poll ever takes a baseline and queues none. */
  async poll(now = new Date()): Promise<number> {
    const { db } = this.ctx;
    if (!this.#loaded) {
      this.#state = await loadState(db);
      this.#loaded = true;
    }
    const before = this.#state;
    const ctx = { ...this.ctx, now };
    const sums = await this.#readSums();
    const last = this.#sums;
    if (before && last && sums.marks === 0 && sums.accounts === last.accounts && sums.shifts === last.shifts && sums.products === last.products) return 0;
    // Unchanged sums: the accounts are as the state has them, and are not read one by one.
    // One after the other: statements in a fixed order, as the saved T-SQL records them.
    const accounts = before && sums.accounts === last?.accounts ? before.accounts : await observeAccounts(db);
    const shifts = await observeShifts(db, before?.lastShiftId ?? 0, [...(before?.openShifts ?? [])]);
    if (!before) {
      await this.#baseline(ctx, sums, accounts, shifts);
      return 0;
    }

    // Read after the tables, never from the sums' earlier snapshot: a write that committed in
    // between shows its changes above, and its marks must be read with them.
    const origins = await readOrigins(db);
    const shiftDiff = diffShifts(before.openShifts, before.lastShiftId, shifts);
    const accountChanges = [...diffAccounts(before.accounts, accounts), ...(await unseenClosedAccounts(ctx, before, accounts, shiftDiff))].sort(byAccount);
    const markedProducts = [...new Set(origins.filter((o) => o.kind === 'producto').map((o) => o.entity))];
    const productsMoved = sums.products !== before.productsFingerprint;
    const expired = origins.filter((o) => now.getTime() - o.createdAt.getTime() > ORIGIN_WAIT_MS);
    const openNow = new Set(shiftDiff.open);
    const shiftsLeft = [...before.openShifts].filter((id) => !openNow.has(id));
    const shiftsJoined = shiftDiff.open.filter((id) => !before.openShifts.has(id));
    if (
      accountChanges.length === 0 &&
      shiftDiff.changes.length === 0 &&
      shiftsLeft.length + shiftsJoined.length === 0 &&
      shiftDiff.lastShiftId === before.lastShiftId &&
      !productsMoved &&
      markedProducts.length === 0 &&
      expired.length === 0
    ) {
      this.#sums = sums;
      return 0;
    }

    const attribution = new Attribution(origins, this.#recentCloses, now, this.licenseKey);
    const shiftEvents = await shiftEventsOf(ctx, shiftDiff, attribution);
    const accountEvents = await accountEventsOf(ctx, before, accountChanges, attribution);
    const products = await productEventsOf(ctx, before, { all: productsMoved, marked: markedProducts }, attribution);
    for (const o of expired) attribution.used.add(o.id);
    const events = [...shiftEvents.opened, ...accountEvents.events, ...shiftEvents.closed, ...products.events];
    await this.#commit(before, sums, events, [...attribution.used], {
      accounts: { put: accountEvents.put, remove: accountEvents.remove },
      openShifts: { add: shiftsJoined, remove: shiftsLeft },
      lastShiftId: shiftDiff.lastShiftId,
      productsFingerprint: sums.products,
      products: products.changes,
      now,
    });
    return events.length;
  }

  /** The first poll ever: what the tables hold now is the state later polls compare with. */
  async #baseline(ctx: PosContext, sums: TableSums, accounts: Map<string, ObservedAccount>, shifts: ObservedShift[]): Promise<void> {
    const products = (await productRecords(ctx)).map((p) => ({ ...productIds(p), fingerprint: fingerprintOf(p), version: 0 }));
    const shiftDiff = diffShifts(new Set(), 0, shifts);
    await this.#commit(undefined, sums, [], [], {
      accounts: { put: [...accounts.values()].map((a) => ({ ...a, version: 0 })), remove: [] },
      openShifts: { add: shiftDiff.open, remove: [] },
      lastShiftId: shiftDiff.lastShiftId,
      productsFingerprint: sums.products,
      products,
      now: ctx.now,
    });
  }

  async #commit(before: DetectionState | undefined, sums: TableSums, events: BranchEvent[], usedOrigins: number[], changes: StateChanges): Promise<void> {
    try {
      await this.ctx.db.transaction().execute(async (trx: PosDb) => {
        await queueEvents(trx, events);
        await forgetOrigins(trx, usedOrigins);
        await saveState(trx, before, changes);
      });
    } catch (error) {
      // The memory may no longer match the tables: read them again at the next poll.
      this.#loaded = false;
      this.#sums = undefined;
      throw error;
    }
    this.#state = applyChanges(before, changes);
    this.#sums = sums;
  }
}

/** turno.abierto and turno.cerrado for the shifts that opened or closed, each with its record. */
async function shiftEventsOf(
  ctx: PosContext,
  diff: ReturnType<typeof diffShifts>,
  attribution: Attribution,
): Promise<{ opened: BranchEvent[]; closed: BranchEvent[] }> {
  const records = await shiftRecords(
    ctx,
    diff.changes.map((c) => c.idturno),
  );
  const opened: BranchEvent[] = [];
  const closed: BranchEvent[] = [];
  for (const change of diff.changes) {
    for (const type of change.types) {
      const jobId = type === 'turno.abierto' ? attribution.jobOf('turno', change.idturno) : attribution.closeJob(change.idturno);
      (type === 'turno.abierto' ? opened : closed).push(
        attribution.event(type, `${change.idturno}|${change.moment}`, jobId, records.get(change.idturno) ?? null),
      );
    }
  }
  return { opened, closed };
}

/**
 * Accounts a close moved to history that no poll saw: opened, settled and moved between two polls
 * (a quick sale just before the close). Read only when a shift closed.
 */
async function unseenClosedAccounts(
  ctx: PosContext,
  before: DetectionState,
  now: ReadonlyMap<string, ObservedAccount>,
  shiftDiff: ReturnType<typeof diffShifts>,
): Promise<AccountChange[]> {
  const closed = shiftDiff.changes.filter((c) => c.types.includes('turno.cerrado')).map((c) => c.idturno);
  if (closed.length === 0) return [];
  return (await closedAccountKeys(ctx, closed))
    .filter((a) => !before.accounts.has(a.key) && !now.has(a.key))
    .map((a) => ({ key: a.key, folio: a.folio, opened: a.opened, idturno: a.idturno, types: [] }));
}

/** The events of the accounts that changed, and the state to keep of them. */
async function accountEventsOf(
  ctx: PosContext,
  before: DetectionState,
  changes: AccountChange[],
  attribution: Attribution,
): Promise<{ events: BranchEvent[]; put: AccountState[]; remove: AccountState[] }> {
  const present = changes.filter((c) => c.now);
  const gone = changes.filter((c) => !c.now);
  const open = await openOrders(
    ctx,
    present.map((c) => c.folio),
  );
  const moved = await closedOrders(
    ctx,
    gone.map((c) => c.folio),
  );
  const events: BranchEvent[] = [];
  const put: AccountState[] = [];
  const remove: AccountState[] = [];
  for (const change of changes) {
    const was = before.accounts.get(change.key);
    const data = change.now ? (open.get(change.folio) ?? null) : (moved.get(change.key) ?? null);
    let version = was?.version ?? 0;
    const types = change.now ? change.types : eventsOfClosedAccount(was, data);
    const jobOfAccount = attribution.jobOf('orden', change.folio);
    // Accounts leave the temporary tables only with a shift close: the close's job made those changes.
    const closedBy = change.now ? null : (attribution.closeJob(change.idturno ?? was?.idturno ?? null) ?? attribution.closingJob);
    for (const type of types) events.push(attribution.event(type, `${change.key}|${++version}`, type === 'orden.cerrada' ? closedBy : jobOfAccount, data));
    if (change.now) put.push({ ...change.now, version });
    else if (was) remove.push(was);
  }
  return { events, put, remove };
}

/**
 * producto.actualizado for each product whose record changed: read all when the products' sum
 * moved, else only those a write marked.
 */
async function productEventsOf(
  ctx: PosContext,
  before: DetectionState,
  products: { all: boolean; marked: string[] },
  attribution: Attribution,
): Promise<{ events: BranchEvent[]; changes: StateChanges['products'] }> {
  const events: BranchEvent[] = [];
  const changes: StateChanges['products'] = [];
  if (!products.all && products.marked.length === 0) return { events, changes };
  for (const record of await productRecords(ctx, products.all ? undefined : products.marked)) {
    const ids = productIds(record);
    const prior = before.products.get(productKey(ids.idproducto, ids.idempresa));
    const fingerprint = fingerprintOf(record);
    if (prior?.fingerprint === fingerprint) continue;
    const version = (prior?.version ?? 0) + 1;
    changes.push({ ...ids, fingerprint, version });
    events.push(
      attribution.event('producto.actualizado', `${ids.idproducto}|${ids.idempresa}|${version}`, attribution.jobOf('producto', ids.idproducto), record),
    );
  }
  for (const id of products.marked) attribution.jobOf('producto', id);
  return { events, changes };
}

function productIds(p: ProductRecord): { idproducto: string; idempresa: string } {
  return { idproducto: p.idProducto, idempresa: p.idEmpresa };
}
