import iconv from 'iconv-lite';

const ENCODING = 'cp858';

// Printable repertoire only: control bytes from user text would be taken as printer commands.
const REPERTOIRE = new Set(iconv.decode(Buffer.from([...Array(256).keys()].filter((b) => (b >= 0x20 && b < 0x7f) || b >= 0x80)), ENCODING));

// Characters that phones and keyboards insert but CP858 lacks, with an obvious stand-in.
const STAND_INS: Readonly<Record<string, string>> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u2013': '-',
  '\u2014': '-',
  '\u2026': '...',
};

const GRAPHEMES = new Intl.Segmenter('es', { granularity: 'grapheme' });

/** What one user-perceived character becomes on paper: one column, or nothing if invisible. */
function printableGrapheme(grapheme: string): string {
  if (REPERTOIRE.has(grapheme)) return grapheme;
  const standIn = STAND_INS[grapheme];
  if (standIn !== undefined) return standIn;
  if (/^\s+$/u.test(grapheme)) return ' ';
  // Controls, format marks and stray combining marks do not print.
  if (/^[\p{Cc}\p{Cf}\p{M}]+$/u.test(grapheme)) return '';
  // An accented letter CP858 lacks keeps its base letter (ă → a); anything else (Ł, 🌮) is "?".
  const base = [...grapheme.normalize('NFD')].find((c) => REPERTOIRE.has(c));
  return base ?? '?';
}

/** Text a CP858 printer can show: one character per printed column, no control characters. */
export function toPrintable(text: string): string {
  // Most text is printable as it is: each of its characters is then a grapheme of its own (CP858
  // has no combining marks) that NFC leaves alone, and segmenting it would change nothing.
  if (allPrintable(text)) return text;
  return Array.from(GRAPHEMES.segment(text.normalize('NFC')), ({ segment }) => printableGrapheme(segment)).join('');
}

function allPrintable(text: string): boolean {
  for (const c of text) if (!REPERTOIRE.has(c)) return false;
  return true;
}

export function encodeCp858(text: string): Buffer {
  return encodePrintable(toPrintable(text));
}

/** Text that already went through toPrintable, in CP858 bytes. */
export function encodePrintable(printable: string): Buffer {
  return iconv.encode(printable, ENCODING);
}

export function decodeCp858(bytes: Uint8Array): string {
  return iconv.decode(Buffer.from(bytes), ENCODING);
}
