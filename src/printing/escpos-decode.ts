import { decodeCp858 } from './cp858.js';

export interface PrintedLine {
  kind: 'line';
  text: string;
  bold: boolean;
  doubleWidth: boolean;
  doubleHeight: boolean;
  align: 'left' | 'center' | 'right';
}

export type PrintedItem = PrintedLine | { kind: 'cut' };

const ESC = 0x1b;
const GS = 0x1d;
const FS = 0x1c;
const DLE = 0x10;
const LF = 0x0a;
const HT = 0x09;
const SO = 0x0e;
const DC4 = 0x14;
const TAB_STOP = 8;

/** Parameter bytes of the fixed-length commands that do not change what the decoder tracks. */
const ESC_PARAMS: Readonly<Record<string, number>> = {
  ' ': 1,
  '%': 1,
  '-': 1,
  '2': 0,
  '3': 1,
  '4': 0,
  '5': 0,
  '<': 0,
  '=': 1,
  '?': 1,
  G: 1,
  J: 1,
  L: 0,
  M: 1,
  R: 1,
  S: 0,
  T: 1,
  U: 1,
  V: 1,
  '\\': 2,
  $: 2,
  c: 2,
  e: 1,
  p: 3,
  r: 1,
  t: 1,
  u: 1,
  v: 0,
  '{': 1,
  '\x0f': 0,
};
const GS_PARAMS: Readonly<Record<string, number>> = {
  B: 1,
  H: 1,
  I: 1,
  L: 2,
  P: 2,
  W: 2,
  '\\': 2,
  $: 2,
  '^': 3,
  a: 1,
  b: 1,
  f: 1,
  h: 1,
  r: 1,
  w: 1,
};
const FS_PARAMS: Readonly<Record<string, number>> = { '!': 1, '&': 0, '-': 1, '.': 0, C: 1, S: 2, W: 1, p: 2 };

/**
 * Reads ESC/POS bytes back into printed lines and cuts, the way a printer would lay them out.
 * Good enough for our own tickets and common commands; unknown commands are skipped byte-wise.
 */
export function decodeEscpos(bytes: Uint8Array): PrintedItem[] {
  const items: PrintedItem[] = [];
  const mode = { bold: false, doubleWidth: false, doubleHeight: false, align: 'left' as PrintedLine['align'] };
  let text: number[] = [];
  let line: Omit<PrintedLine, 'text' | 'kind'> | undefined;

  const put = (byte: number): void => {
    line ??= { bold: false, doubleWidth: false, doubleHeight: false, align: mode.align };
    line.bold ||= mode.bold;
    line.doubleWidth ||= mode.doubleWidth;
    line.doubleHeight ||= mode.doubleHeight;
    text.push(byte);
  };
  const endLine = (): void => {
    const style = line ?? { bold: false, doubleWidth: false, doubleHeight: false, align: mode.align };
    items.push({ kind: 'line', text: decodeCp858(Uint8Array.from(text)), ...style });
    text = [];
    line = undefined;
  };
  const feed = (lines: number): void => {
    for (let i = 0; i < lines; i++) endLine();
  };
  const cut = (): void => {
    if (line) endLine();
    items.push({ kind: 'cut' });
  };
  const reset = (): void => {
    Object.assign(mode, { bold: false, doubleWidth: false, doubleHeight: false, align: 'left' });
  };
  const setAlign = (n: number): void => {
    mode.align = (['left', 'center', 'right'] as const)[n % 48] ?? 'left';
  };

  let i = 0;
  const at = (offset: number): number => bytes[i + offset] ?? 0;
  const afterNul = (from: number): number => {
    const nul = bytes.indexOf(0, from);
    return nul < 0 ? bytes.length : nul + 1;
  };
  while (i < bytes.length) {
    const byte = at(0);
    if (byte === ESC) {
      const command = String.fromCharCode(at(1));
      const n = at(2);
      i += 2;
      switch (command) {
        case '@':
          reset();
          break;
        case '!':
          mode.bold = (n & 0x08) !== 0;
          mode.doubleHeight = (n & 0x10) !== 0;
          mode.doubleWidth = (n & 0x20) !== 0;
          i += 1;
          break;
        case 'E':
          mode.bold = (n & 1) === 1;
          i += 1;
          break;
        case 'a':
          setAlign(n);
          i += 1;
          break;
        case 'd':
          feed(Math.max(1, n));
          i += 1;
          break;
        case 'i':
        case 'm':
          cut();
          break;
        case '*':
          i += 3 + (at(1) | (at(2) << 8)) * (n >= 32 ? 3 : 1);
          break;
        case 'D':
          i = afterNul(i);
          break;
        default:
          i += ESC_PARAMS[command] ?? 0;
      }
    } else if (byte === GS) {
      const command = String.fromCharCode(at(1));
      const n = at(2);
      i += 2;
      switch (command) {
        case '!':
          mode.doubleWidth = (n & 0x70) !== 0;
          mode.doubleHeight = (n & 0x07) !== 0;
          i += 1;
          break;
        case 'V':
          cut();
          i += n === 65 || n === 66 || n === 97 || n === 98 ? 2 : 1;
          break;
        case '(':
          i += 2 + (at(0) | (at(1) << 8));
          break;
        case 'v':
          i += 6 + (at(2) | (at(3) << 8)) * (at(4) | (at(5) << 8));
          break;
        case 'k':
          if (n <= 6) i = afterNul(i + 1);
          else i += 2 + at(1);
          break;
        default:
          i += GS_PARAMS[command] ?? 0;
      }
    } else if (byte === FS) {
      i += 2 + (FS_PARAMS[String.fromCharCode(at(1))] ?? 0);
    } else if (byte === DLE) {
      // DLE EOT n, DLE ENQ n: real-time requests; DLE DC4 fn a b: real-time actions.
      i += at(1) === DC4 ? 5 : 3;
    } else {
      if (byte === LF) endLine();
      else if (byte === HT)
        do put(0x20);
        while (text.length % TAB_STOP !== 0);
      else if (byte === SO) mode.doubleWidth = true;
      else if (byte === DC4) mode.doubleWidth = false;
      else if (byte >= 0x20 && byte !== 0x7f) put(byte);
      i += 1;
    }
  }
  if (line) endLine();
  return items;
}

/** The printed text, one line per printed line, trailing blank lines dropped. */
export function escposText(items: readonly PrintedItem[]): string {
  const lines = items.filter((item): item is PrintedLine => item.kind === 'line').map((l) => l.text.trimEnd());
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return lines.join('\n');
}
