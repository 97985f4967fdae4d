import { decodeCp858 } from './cp858.js';

export interface LabelText {
  x: number;
  y: number;
  font: string;
  text: string;
}

export interface DecodedLabels {
  widthMm: number;
  heightMm: number;
  /** One entry per printed label (PRINT m repeats a label m times). */
  labels: LabelText[][];
}

const TEXT_COMMAND = /^TEXT\s+(\d+)\s*,\s*(\d+)\s*,\s*"([^"]*)"\s*,\s*\d+\s*,\s*\d+\s*,\s*\d+\s*,\s*"(.*)"\s*$/s;
const SIZE_COMMAND = /^SIZE\s+([\d.]+)\s*(?:mm)?\s*,\s*([\d.]+)\s*(?:mm)?/;
const PRINT_COMMAND = /^PRINT\s+(\d+)/;

/** Reads back the labels of a TSPL job: their size and the TEXT on each. Other commands are ignored. */
export function decodeTspl(bytes: Uint8Array): DecodedLabels {
  const decoded: DecodedLabels = { widthMm: 0, heightMm: 0, labels: [] };
  let current: LabelText[] = [];
  // latin1 keeps one character per byte, so TEXT contents can go back to bytes for CP858.
  for (const line of Buffer.from(bytes).toString('latin1').split(/\r?\n/)) {
    const command = line.trim();
    const size = SIZE_COMMAND.exec(command);
    const text = TEXT_COMMAND.exec(command);
    const print = PRINT_COMMAND.exec(command);
    if (size) {
      decoded.widthMm = Number(size[1]);
      decoded.heightMm = Number(size[2]);
    } else if (command === 'CLS') {
      current = [];
    } else if (text) {
      const [, x, y, font, content] = text as unknown as [string, string, string, string, string];
      const unquoted = content.replaceAll('\\["]', '"');
      current.push({ x: Number(x), y: Number(y), font, text: decodeCp858(Buffer.from(unquoted, 'latin1')) });
    } else if (print) {
      for (let copy = 0; copy < Number(print[1]); copy++) decoded.labels.push(current);
    }
  }
  return decoded;
}

/** Each label's texts top to bottom, labels separated by a blank line. */
export function tsplText(decoded: DecodedLabels): string {
  return decoded.labels
    .map((label) =>
      [...label]
        .sort((a, b) => a.y - b.y || a.x - b.x)
        .map((t) => t.text)
        .join('\n'),
    )
    .join('\n\n');
}
