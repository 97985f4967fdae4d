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
import { diffAccounts, diffShifts, type AccountChange, type AccountState } from './diff.js';
import { fingerprintOf, observeAccounts, observeShifts, tableSums, type TableSums } from './observe.js';
import { forgetOrigins, readOrigins, type Origin } from './origins.js';
import { queueEvents } from './outbox.js';
import { closedOrders, openOrders, productRecords, shiftRecords, type ProductRecord } from './records.js';
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
  /** The sums (tableSums) the state was last compared with; memory only. */
  #sums: TableSums | undefined;

  constructor(
    private readonly ctx: DetectorContext,
    private readonly licenseKey: string,
  ) {}

  /** Runs one poll; how many events it queued. The first poll ever takes a baseline and queues none. */
  async poll(now = new Date()): Promise<number> {
    const { db } = this.ctx;
    if (!this.#loaded) {
      this.#state = await loadState(db);
      this.#loaded = true;
    }
    const before = this.#state;
    const ctx = { ...this.ctx, now };
    const sums = await tableSums(db);
    const last = this.#sums;
    if (before && last && sums.marks === 0 && sums.accounts === last.accounts && sums.shifts === last.shifts && sums.products === last.products) return 0;
    const productsFingerprint = sums.products;
    // Unchanged sums: the accounts are as the state has them, and are not read one by one.
    // One after the other: statements in a fixed order, as the saved T-SQL records them.
    const accounts = before && sums.accounts === last?.accounts ? before.accounts : await observeAccounts(db);
    const shifts = await observeShifts(db, before?.lastShiftId ?? 0, [...(before?.openShifts ?? [])]);
    if (!before) {
      const products = (await productRecords(ctx)).map((p) => ({ ...productIds(p), fingerprint: fingerprintOf(p), version: 0 }));
      const shiftDiff = diffShifts(new Set(), 0, shifts);
      await this.#commit(undefined, sums, [], [], {
        accounts: { put: [...accounts.values()].map((a) => ({ ...a, version: 0 })), remove: [] },
        openShifts: { add: shiftDiff.open, remove: [] },
        lastShiftId: shiftDiff.lastShiftId,
        productsFingerprint,
        products,
        now,
      });
      return 0;
    }

    // Read after the tables, never from the sums' earlier snapshot: a write that committed in
    // between shows its changes above, and its marks must be read with them.
    const origins = await readOrigins(db);
    const accountChanges = diffAccounts(before.accounts, accounts);
    const shiftDiff = diffShifts(before.openShifts, before.lastShiftId, shifts);
    const markedProducts = [...new Set(origins.filter((o) => o.kind === 'producto').map((o) => o.entity))];
    const productsMoved = productsFingerprint !== before.productsFingerprint;
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

    const used = new Set<number>();
    const jobOf = (kind: Origin['kind'], entity: string | number | null): string | null => {
      const marks = entity === null ? [] : origins.filter((o) => o.kind === kind && o.entity === String(entity));
      for (const m of marks) used.add(m.id);
      return marks.at(-1)?.jobId ?? null;
    };
    const event = (type: EventType, subject: string, jobId: string | null, data: BranchEvent['data']): BranchEvent => ({
      id: eventId(this.licenseKey, `${type}|${subject}`),
      type,
      licenseKey: this.licenseKey,
      timestamp: now.toISOString(),
      origin: jobId ? 'api' : 'pos',
      jobId,
      data,
    });

    const shiftData = await shiftRecords(
      ctx,
      shiftDiff.changes.map((c) => c.idturno),
    );
    for (const [idturno, close] of this.#recentCloses) if (now.getTime() - close.at > ORIGIN_WAIT_MS) this.#recentCloses.delete(idturno);
    const closeJob = (idturno: number | null): string | null => {
      if (idturno === null) return null;
      const jobId = jobOf('cierre', idturno) ?? this.#recentCloses.get(idturno)?.jobId ?? null;
      if (jobId) this.#recentCloses.set(idturno, { jobId, at: now.getTime() });
      return jobId;
    };
    const opened: BranchEvent[] = [];
    const closed: BranchEvent[] = [];
    for (const change of shiftDiff.changes) {
      for (const type of change.types) {
        const jobId = type === 'turno.abierto' ? jobOf('turno', change.idturno) : closeJob(change.idturno);
        (type === 'turno.abierto' ? opened : closed).push(event(type, `${change.idturno}|${change.moment}`, jobId, shiftData.get(change.idturno) ?? null));
      }
    }

    // Accounts leave the temporary tables only with a shift close: when one job closed shifts
    // lately, the accounts that left are its doing, whatever shift their rows name.
    const closingJobs = new Set([...origins.filter((o) => o.kind === 'cierre').map((o) => o.jobId), ...[...this.#recentCloses.values()].map((c) => c.jobId)]);
    const closingJob = closingJobs.size === 1 ? [...closingJobs][0]! : null;
    const { events: accountEvents, put, remove } = await this.#accountEvents(ctx, before, accountChanges, jobOf, closeJob, event, closingJob);

    const products: StateChanges['products'] = [];
    const productEvents: BranchEvent[] = [];
    if (productsMoved || markedProducts.length > 0) {
      for (const record of await productRecords(ctx, productsMoved ? undefined : markedProducts)) {
        const ids = productIds(record);
        const prior = before.products.get(productKey(ids.idproducto, ids.idempresa));
        const fingerprint = fingerprintOf(record);
        if (prior?.fingerprint === fingerprint) continue;
        const version = (prior?.version ?? 0) + 1;
        products.push({ ...ids, fingerprint, version });
        productEvents.push(event('producto.actualizado', `${ids.idproducto}|${ids.idempresa}|${version}`, jobOf('producto', ids.idproducto), record));
      }
      for (const id of markedProducts) jobOf('producto', id);
    }

    for (const o of expired) used.add(o.id);
    await this.#commit(before, sums, [...opened, ...accountEvents, ...closed, ...productEvents], [...used], {
      accounts: { put, remove },
      openShifts: { add: shiftsJoined, remove: shiftsLeft },
      lastShiftId: shiftDiff.lastShiftId,
      productsFingerprint,
      products,
      now,
    });
    return opened.length + accountEvents.length + closed.length + productEvents.length;
  }

  async #accountEvents(
    ctx: PosContext,
    before: DetectionState,
    changes: AccountChange[],
    jobOf: (kind: Origin['kind'], entity: string | number | null) => string | null,
    closeJob: (idturno: number | null) => string | null,
    event: (type: EventType, subject: string, jobId: string | null, data: BranchEvent['data']) => BranchEvent,
    closingJob: string | null,
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
      // A shift close moves its accounts to history: the close's job made those changes.
      const jobId = change.now ? jobOf('orden', change.folio) : (closeJob(was?.idturno ?? null) ?? closingJob);
      const data = change.now ? (open.get(change.folio) ?? null) : (moved.get(change.key) ?? null);
      let version = was?.version ?? 0;
      for (const type of change.types) events.push(event(type, `${change.key}|${++version}`, jobId, data));
      if (change.now) put.push({ ...change.now, version });
      else if (was) remove.push(was);
    }
    return { events, put, remove };
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

function productIds(p: ProductRecord): { idproducto: string; idempresa: string } {
  return { idproducto: p.idProducto, idempresa: p.idEmpresa };
}
