/**
 * What changed between two polls, as event types per record. Pure: the state the last poll
 * left and what this one observed go in, changes come out.
 */
import type { EventType } from '../../protocol/events.js';
import { type AccountStatus, type ObservedAccount, type ObservedShift } from './observe.js';

export interface AccountState {
  folio: number;
  opened: string;
  status: AccountStatus;
  idturno: number | null;
  fingerprint: string;
  version: number;
}

export interface AccountChange {
  key: string;
  folio: number;
  opened: string;
  types: EventType[];
  /** Absent when the account left the temporary tables. */
  now?: ObservedAccount;
  /** The shift whose close moved it, for an account no poll saw before it left. */
  idturno?: number;
}

const STATUS_EVENT: Record<AccountStatus, EventType> = {
  abierta: 'orden.actualizada',
  impresa: 'orden.impresa',
  pagada: 'orden.pagada',
  cancelada: 'orden.cancelada',
};

export function diffAccounts(before: ReadonlyMap<string, AccountState>, now: ReadonlyMap<string, ObservedAccount>): AccountChange[] {
  const changes: AccountChange[] = [];
  for (const [key, seen] of now) {
    const was = before.get(key);
    const base = { key, folio: seen.folio, opened: seen.opened, now: seen };
    if (!was) {
      // Opened since the last poll, perhaps already paid or cancelled (a quick sale is born paid).
      changes.push({ ...base, types: ['orden.abierta', ...(seen.status === 'abierta' ? [] : [STATUS_EVENT[seen.status]])] });
    } else if (was.status !== seen.status) {
      // Back to open from printed is a reopened account; from paid or cancelled, an update.
      changes.push({ ...base, types: [was.status === 'impresa' && seen.status === 'abierta' ? 'orden.reabierta' : STATUS_EVENT[seen.status]] });
    } else if (was.fingerprint !== seen.fingerprint) {
      changes.push({ ...base, types: ['orden.actualizada'] });
    }
  }
  for (const [key, was] of before) {
    if (!now.has(key)) changes.push({ key, folio: was.folio, opened: was.opened, types: ['orden.cerrada'] });
  }
  return changes.sort(byAccount);
}

// By code unit: `opened` is ISO text (openedText), and localeCompare would load ICU's collation
// data into the agent (3 MB resident) on the first two changes to one folio.
export const byAccount = (a: AccountChange, b: AccountChange) => a.folio - b.folio || (a.opened < b.opened ? -1 : a.opened > b.opened ? 1 : 0);

/**
 * The events of an account a close moved to history, in order: what the last poll did not see of
 * it (its opening, its payment or cancellation, from its history record), then `orden.cerrada`. A
 * webhook that counts sales from `orden.pagada` must get it, as it would had a poll come in between.
 */
export function eventsOfClosedAccount(was: AccountState | undefined, record: { pagado?: unknown; cancelado?: unknown } | null): EventType[] {
  const status: AccountStatus | undefined = record?.cancelado === true ? 'cancelada' : record?.pagado === true ? 'pagada' : undefined;
  return [...(was ? [] : (['orden.abierta'] as const)), ...(status && status !== was?.status ? [STATUS_EVENT[status]] : []), 'orden.cerrada'];
}

export interface ShiftChange {
  idturno: number;
  moment: string;
  types: EventType[];
}

export interface ShiftDiff {
  changes: ShiftChange[];
  open: number[];
  lastShiftId: number;
}

export function diffShifts(openBefore: ReadonlySet<number>, lastShiftId: number, observed: readonly ObservedShift[]): ShiftDiff {
  const changes: ShiftChange[] = [];
  for (const s of [...observed].sort((a, b) => a.idturnointerno - b.idturnointerno)) {
    const wasOpen = openBefore.has(s.idturno);
    // Opened since the last poll (perhaps closed again already), or reopened.
    const opened = !wasOpen && (s.idturnointerno > lastShiftId || s.open);
    if (opened) changes.push({ idturno: s.idturno, moment: s.moment, types: s.open ? ['turno.abierto'] : ['turno.abierto', 'turno.cerrado'] });
    else if (wasOpen && !s.open) changes.push({ idturno: s.idturno, moment: s.moment, types: ['turno.cerrado'] });
  }
  return {
    changes,
    open: observed.filter((s) => s.open).map((s) => s.idturno),
    lastShiftId: Math.max(lastShiftId, ...observed.map((s) => s.idturnointerno)),
  };
}
