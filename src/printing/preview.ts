import { PNG } from 'pngjs';
import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphFor } from './bitmap-font.js';
import { decodeEscpos, type PrintedItem, type PrintedLine } from './escpos-decode.js';
import { detectJobKind, type ReceivedJob } from './received-job.js';
import { FONT_CELL_203DPI, type TsplFont } from './tspl.js';
import { decodeTspl } from './tspl-decode.js';

type Rgb = readonly [number, number, number];

const INK: Rgb = [20, 20, 20];
const PAPER: Rgb = [255, 255, 255];
const BACKDROP: Rgb = [200, 200, 205];
const CUT_MARK: Rgb = [200, 40, 40];

/** Dots per pixel of the font: a 6×12 cell drawn twice as large is the printers' 12×24 Font A. */
const SCALE = 2;
const CELL_WIDTH = (GLYPH_WIDTH + 1) * SCALE;
const CELL_HEIGHT = (GLYPH_HEIGHT + 1) * SCALE;
const LINE_GAP = 6;
const MARGIN = 16;
const BACKDROP_GAP = 16;
const NARROW_COLUMNS = 32;
const WIDE_COLUMNS = 48;
const DOTS_PER_MM_203DPI = 8;

class Canvas {
  readonly png: PNG;

  constructor(width: number, height: number) {
    this.png = new PNG({ width, height });
    this.fill(0, 0, width, height, BACKDROP);
  }

  fill(x: number, y: number, width: number, height: number, color: Rgb): void {
    const { png } = this;
    for (let row = Math.max(0, y); row < Math.min(png.height, y + height); row++) {
      for (let col = Math.max(0, x); col < Math.min(png.width, x + width); col++) {
        const at = (row * png.width + col) * 4;
        png.data[at] = color[0];
        png.data[at + 1] = color[1];
        png.data[at + 2] = color[2];
        png.data[at + 3] = 255;
      }
    }
  }

  /** Bold is the glyph drawn again one pixel to the right, as thermal heads do it. */
  text(text: string, x: number, y: number, scaleX: number, scaleY: number, bold: boolean, advance = (GLYPH_WIDTH + 1) * scaleX): void {
    [...text].forEach((char, index) => {
      const left = x + index * advance;
      glyphFor(char).forEach((row, r) => {
        for (let c = 0; c < GLYPH_WIDTH; c++) {
          if (!(row & (1 << (GLYPH_WIDTH - 1 - c)))) continue;
          this.fill(left + c * scaleX, y + r * scaleY, scaleX + (bold ? 1 : 0), scaleY, INK);
        }
      });
    });
  }

  toBuffer(): Buffer {
    return PNG.sync.write(this.png);
  }
}

function lineWidth(line: PrintedLine): number {
  return line.text.length * (line.doubleWidth ? 2 : 1);
}

function lineHeight(line: PrintedLine): number {
  return CELL_HEIGHT * (line.doubleHeight ? 2 : 1) + LINE_GAP;
}

/** A receipt: the ticket's paper width, a red dashed line and a gap wherever it was cut. */
function renderReceipt(items: PrintedItem[]): Buffer {
  const lines = items.filter((item): item is PrintedLine => item.kind === 'line');
  // 58 or 80 mm paper as the lines suggest, or wider paper when a line is wider still (112 mm: 69 columns).
  const widest = Math.max(0, ...lines.map(lineWidth));
  const columns = widest <= NARROW_COLUMNS ? NARROW_COLUMNS : Math.max(WIDE_COLUMNS, widest);
  const paperWidth = columns * CELL_WIDTH + 2 * MARGIN;
  const placed: Array<{ line: PrintedLine; x: number; y: number }> = [];
  const cuts: number[] = [];
  let y = MARGIN;
  for (const [index, item] of items.entries()) {
    if (item.kind === 'cut') {
      cuts.push(y);
      y += BACKDROP_GAP + (index === items.length - 1 ? 0 : MARGIN);
      continue;
    }
    const spare = Math.max(0, columns - lineWidth(item));
    const offset = item.align === 'center' ? Math.floor(spare / 2) : item.align === 'right' ? spare : 0;
    placed.push({ line: item, x: BACKDROP_GAP + MARGIN + offset * CELL_WIDTH, y });
    y += lineHeight(item);
  }
  const height = items.at(-1)?.kind === 'cut' ? y : y + MARGIN;

  const canvas = new Canvas(paperWidth + 2 * BACKDROP_GAP, height);
  canvas.fill(BACKDROP_GAP, 0, paperWidth, height, PAPER);
  for (const cutY of cuts) {
    canvas.fill(BACKDROP_GAP, cutY, paperWidth, BACKDROP_GAP, BACKDROP);
    for (let x = BACKDROP_GAP; x < BACKDROP_GAP + paperWidth; x += 12) canvas.fill(x, cutY - 3, 7, 2, CUT_MARK);
  }
  for (const { line, x, y: top } of placed) {
    const scaleX = SCALE * (line.doubleWidth ? 2 : 1);
    const scaleY = SCALE * (line.doubleHeight ? 2 : 1);
    canvas.text(line.text, x, top, scaleX, scaleY, line.bold);
  }
  return canvas.toBuffer();
}

/** Labels at 203 dpi, one below the other, with the backing liner's gap between them. */
function renderLabelSheet(bytes: Uint8Array): Buffer {
  const decoded = decodeTspl(bytes);
  const width = Math.round(decoded.widthMm * DOTS_PER_MM_203DPI) || 400;
  const height = Math.round(decoded.heightMm * DOTS_PER_MM_203DPI) || 200;
  const count = Math.max(1, decoded.labels.length);
  const canvas = new Canvas(width + 2 * BACKDROP_GAP, count * (height + BACKDROP_GAP) + BACKDROP_GAP);
  decoded.labels.forEach((label, index) => {
    const top = BACKDROP_GAP + index * (height + BACKDROP_GAP);
    canvas.fill(BACKDROP_GAP, top, width, height, PAPER);
    for (const text of label) {
      const cell = FONT_CELL_203DPI[text.font as TsplFont] ?? FONT_CELL_203DPI['2'];
      // Characters keep the printer font's pitch; the glyph is the largest that fits its cell.
      const scaleX = Math.max(1, Math.floor(cell.width / (GLYPH_WIDTH + 1)));
      const scaleY = Math.max(1, Math.round(cell.height / (GLYPH_HEIGHT + 1)));
      canvas.text(text.text, BACKDROP_GAP + text.x, top + text.y, scaleX, scaleY, false, cell.width);
    }
  });
  return canvas.toBuffer();
}

/** A PNG a person can read instead of the paper: a receipt for ESC/POS, label outlines for TSPL. */
export function renderPreviewPng(job: ReceivedJob | Buffer): Buffer {
  const bytes = Buffer.isBuffer(job) ? job : job.bytes;
  const kind = Buffer.isBuffer(job) ? detectJobKind(job) : job.kind;
  return kind === 'tspl' ? renderLabelSheet(bytes) : renderReceipt(decodeEscpos(bytes));
}
