import { encodeCp858, toPrintable } from './cp858.js';
import { DEFAULT_LABEL_SETTINGS, type KitchenTicket, type KitchenTicketLine, type LabelSettings, type TestTicket } from './ticket.js';
import { formatTicketDate } from './ticket-date.js';
import { wrapWithPrefix } from './wrap.js';
import { labelsPerLine } from '../protocol/operations/printing.js';

export type TsplFont = '1' | '2' | '3' | '4' | '5';

/** Cell size in dots of TSPL's built-in fonts at 203 dpi; other resolutions scale them. */
export const FONT_CELL_203DPI: Readonly<Record<TsplFont, { width: number; height: number }>> = {
  '1': { width: 8, height: 12 },
  '2': { width: 12, height: 20 },
  '3': { width: 16, height: 24 },
  '4': { width: 24, height: 32 },
  '5': { width: 32, height: 48 },
};

/**
 * TSPL's CODEPAGE has no 858; 850 is the same table except 0xD5 (€ in 858, ı in 850), and the
 * Spanish capitals Á Í Ó Ú are missing from the power-on default 437.
 */
const TSPL_CODE_PAGE = '850';

/** TSPL prints a double quote inside a string as \["]. */
function quoteTsplText(text: string): string {
  return toPrintable(text).replaceAll('"', '\\["]');
}

/** Plain TSPL command lines, CRLF-terminated; TEXT contents are CP858 bytes. */
export class TsplBuilder {
  private readonly chunks: Buffer[] = [];

  private line(command: string | Buffer): this {
    this.chunks.push(typeof command === 'string' ? Buffer.from(command, 'latin1') : command);
    this.chunks.push(Buffer.from('\r\n', 'latin1'));
    return this;
  }

  size(widthMm: number, heightMm: number): this {
    return this.line(`SIZE ${widthMm} mm,${heightMm} mm`);
  }

  gap(gapMm: number): this {
    return this.line(`GAP ${gapMm} mm,0 mm`);
  }

  density(level: number): this {
    return this.line(`DENSITY ${level}`);
  }

  speed(inchesPerSecond: number): this {
    return this.line(`SPEED ${inchesPerSecond}`);
  }

  direction(value: 0 | 1): this {
    return this.line(`DIRECTION ${value}`);
  }

  codePage(page: string): this {
    return this.line(`CODEPAGE ${page}`);
  }

  cls(): this {
    return this.line('CLS');
  }

  text(x: number, y: number, font: TsplFont, rotation: 0 | 90 | 180 | 270, xMul: number, yMul: number, text: string): this {
    return this.line(
      Buffer.concat([
        Buffer.from(`TEXT ${x},${y},"${font}",${rotation},${xMul},${yMul},"`, 'latin1'),
        encodeCp858(quoteTsplText(text)),
        Buffer.from('"', 'latin1'),
      ]),
    );
  }

  print(sets: number, copies: number): this {
    return this.line(`PRINT ${sets},${copies}`);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

interface LabelLine {
  font: TsplFont;
  text: string;
}

const MARGIN_MM = 2;
const LINE_SPACING_DOTS = 4;

/** Lays text lines out top-down on one label, ending with "..." when the label is full. */
class LabelLayout {
  private readonly dotsPerMm: number;
  readonly widthDots: number;
  readonly heightDots: number;
  readonly marginDots: number;

  constructor(private readonly settings: LabelSettings) {
    this.dotsPerMm = settings.labelDpi / 25.4;
    this.widthDots = Math.round(settings.labelWidthMm * this.dotsPerMm);
    this.heightDots = Math.round(settings.labelHeightMm * this.dotsPerMm);
    this.marginDots = Math.round(MARGIN_MM * this.dotsPerMm);
  }

  cell(font: TsplFont): { width: number; height: number } {
    const scale = this.settings.labelDpi / 203;
    const cell = FONT_CELL_203DPI[font];
    return { width: Math.round(cell.width * scale), height: Math.round(cell.height * scale) };
  }

  columns(font: TsplFont): number {
    return Math.max(1, Math.floor((this.widthDots - 2 * this.marginDots) / this.cell(font).width));
  }

  place(builder: TsplBuilder, lines: LabelLine[]): void {
    let y = this.marginDots;
    const bottom = this.heightDots - this.marginDots;
    for (const [i, line] of lines.entries()) {
      const height = this.cell(line.font).height;
      if (y + height > bottom) break;
      const next = lines[i + 1];
      const overflows = next !== undefined && y + height + LINE_SPACING_DOTS + this.cell(next.font).height > bottom;
      const text = overflows ? `${line.text.slice(0, this.columns(line.font) - 3)}...` : line.text;
      builder.text(this.marginDots, y, line.font, 0, 1, 1, text);
      y += height + LINE_SPACING_DOTS;
    }
  }
}

function startJob(settings: LabelSettings): TsplBuilder {
  return new TsplBuilder()
    .size(settings.labelWidthMm, settings.labelHeightMm)
    .gap(settings.labelGapMm)
    .density(settings.labelDensity)
    .speed(settings.labelSpeed)
    .direction(1)
    .codePage(TSPL_CODE_PAGE);
}

export type LabelOptions = Partial<LabelSettings> & {
  /** IANA zone for the printed time; defaults to the process's zone (the branch's). */
  timeZone?: string;
};

function wrapped(font: TsplFont, text: string, columns: number, prefix = ''): LabelLine[] {
  return wrapWithPrefix(prefix, toPrintable(text), columns).map((line) => ({ font, text: line }));
}

function headerLine(left: string, right: string, columns: number): string {
  const room = Math.max(0, columns - right.length - 1);
  return `${toPrintable(left).slice(0, room).padEnd(room)} ${right}`;
}

/** One label per unit of each line (cantidad 3 → 3 labels), numbered across the order. */
export function renderLabels(ticket: KitchenTicket, options: LabelOptions = {}): Buffer {
  const settings = { ...DEFAULT_LABEL_SETTINGS, ...options };
  const layout = new LabelLayout(settings);
  const builder = startJob(settings);
  const small = layout.columns('2');
  const large = layout.columns('3');
  const time = formatTicketDate(ticket.date, options.timeZone).slice(-5);
  const units = ticket.lines.flatMap((line) => Array<KitchenTicketLine>(labelsPerLine(line.cantidad)).fill(line));
  for (const [i, line] of units.entries()) {
    builder.cls();
    layout.place(builder, [
      { font: '2', text: headerLine(`#${ticket.orderFolio} ${time}`, `${i + 1}/${units.length}`, small) },
      ...wrapped('3', line.descripcion, large),
      ...(line.modificadores ?? []).flatMap((modifier) => wrapped('2', modifier, small, '+ ')),
      ...(line.comentario ? wrapped('2', line.comentario, small, '* ') : []),
    ]);
    builder.print(1, 1);
  }
  return builder.toBuffer();
}

export function renderTestLabel(ticket: TestTicket, options: LabelOptions = {}): Buffer {
  const settings = { ...DEFAULT_LABEL_SETTINGS, ...options };
  const layout = new LabelLayout(settings);
  const small = layout.columns('2');
  const builder = startJob(settings).cls();
  layout.place(builder, [
    ...wrapped('3', ticket.title, layout.columns('3')),
    ...wrapped('2', ticket.message, small),
    ...(ticket.printerName ? wrapped('2', ticket.printerName, small) : []),
    { font: '2', text: formatTicketDate(ticket.date, options.timeZone) },
  ]);
  return builder.print(1, 1).toBuffer();
}
