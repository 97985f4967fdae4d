/**
 * Reading POS values for the API. Drivers differ (pg gives numeric as text, tedious as number;
 * bit comes back as boolean, numeric(1) flags as numbers), so every value passes through here.
 */
import { Dec } from './totals.js';

type Raw = string | number | null | undefined;

export function dec(value: Raw): InstanceType<typeof Dec> {
  return new Dec(value === null || value === undefined || value === '' ? 0 : value);
}

const PLAIN_DECIMAL = /^-?\d+(?:\.(\d*?))?0*$/;

/** A JSON number with at most `places` decimals, rounded half up from the exact value. */
export function amount(value: Raw, places = 2): number {
  // Most values already have few enough decimals (pg sends money as '35.0000'): a string the
  // rounding cannot change converts directly, which is exact for the shortest decimal form.
  if (typeof value === 'string') {
    const m = PLAIN_DECIMAL.exec(value);
    if (m && (m[1] ?? '').length <= places) return Number(value);
  }
  return Number(dec(value).toDecimalPlaces(places).toFixed());
}

export function int(value: Raw): number | null {
  return value === null || value === undefined ? null : Number(value);
}

export function flag(value: boolean | number | string | null | undefined): boolean {
  return value === true || value === 1 || value === '1';
}

export function text(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : value.trimEnd();
}

/**
 * A key as a Soft Restaurant database compares it: its case-insensitive collations ignore letter
 * case and trailing blanks, so a JavaScript map or comparison of keys read back from SQL Server
 * must too, or a row the query matched goes missing in the code that reads it.
 */
export function collationKey(value: string): string {
  return value.trimEnd().toUpperCase();
}

/** Whether two keys are the same key to the branch's collation. */
export function sameKey(a: string, b: string): boolean {
  return collationKey(a) === collationKey(b);
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

/** Branch-local wall-clock time with the branch's UTC offset: 2026-11-21T14:05:00-06:00. */
export function localIso(date: Date | null | undefined): string | null {
  if (!date) return null;
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}` +
    `${sign}${pad(Math.trunc(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`
  );
}
