/** Numbers, times and durations as the chosen language writes them. */
import { lang, t } from './i18n.js';

const locale = lang === 'en' ? 'en-US' : 'es-MX';
const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'short', timeStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(locale, { timeStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'always', style: 'short' });
const integer = new Intl.NumberFormat(locale);
const oneDecimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });

export const formatCount = (n: number) => integer.format(n);
export const formatTime = (date: Date) => timeOnly.format(date);
export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));

export function formatMs(ms: number | null): string {
  if (ms === null) return t.none;
  return ms < 1000 ? `${integer.format(ms)} ms` : `${oneDecimal.format(ms / 1000)} s`;
}

/** 45 s, 12 min, 3 h 5 min, 2 d 4 h: two units at most. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null) return t.none;
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ];
  const total = Math.max(0, Math.round(seconds));
  const first = units.findIndex(([, size]) => total >= size);
  if (first === -1) return '0 s';
  const [unit, size] = units[first]!;
  const next = units[first + 1];
  const rest = next ? Math.floor((total % size) / next[1]) : 0;
  return rest > 0 && next ? `${Math.floor(total / size)} ${unit} ${rest} ${next[0]}` : `${Math.floor(total / size)} ${unit}`;
}

/** The branch server's clock against the gateway's: "+5 min adelantado", "120 ms atrasado". */
export function formatOffset(ms: number | null): string {
  if (ms === null) return t.none;
  const size = Math.abs(ms) < 1000 ? formatMs(Math.abs(ms)) : formatDuration(Math.abs(ms) / 1000);
  return ms >= 0 ? `+${size} ${t.clockAhead}` : `−${size} ${t.clockBehind}`;
}

/** "hace 5 min" for a moment before `now`. */
export function formatAgo(iso: string, now: number): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relative.format(seconds, 'second');
  if (abs < 3_600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3_600), 'hour');
  return relative.format(Math.round(seconds / 86_400), 'day');
}
