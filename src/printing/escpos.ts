import { cp858PageFor } from './code-pages.js';
import { encodePrintable, toPrintable } from './cp858.js';
import type { AccountTicket } from '../protocol/account-ticket.js';
import type { KitchenTicket, KitchenTicketLine, TestTicket } from './ticket.js';
import { formatTicketDate } from './ticket-date.js';
import { wrapText, wrapWithPrefix } from './wrap.js';

/** Thermal heads print 8 dots per mm (203 dpi); Font A is 12 dots wide. */
const DOTS_PER_MM = 8;
const FONT_A_DOTS = 12;

/**
 * The dots a head prints across paper `widthMm` wide: the paper less the margins it leaves
 * unprinted, 5 mm a side below 80 mm and 4 mm a side from 80 mm. That gives the usual heads: 58
 * mm paper 384 dots, 80 mm 576 dots, 112 mm 832 dots (the 2-, 3- and 4-inch heads).
 */
export function printableDots(widthMm: number): number {
  const margin = widthMm < 80 ? 10 : 8;
  return (widthMm - margin) * DOTS_PER_MM;
}

/** Font A characters per printed line: 32 on 58 mm paper, 48 on 80 mm, 69 on 112 mm. */
export function columnsFor(widthMm: number): number {
  return Math.floor(printableDots(widthMm) / FONT_A_DOTS);
}

export interface EscposOptions {
  /** Paper width in mm. */
  widthMm: number;
  /** Printer model name; picks the code-page command (see code-pages.ts). */
  model?: string;
  /** IANA zone for the printed date; defaults to the process's zone (the branch's). */
  timeZone?: string;
}

/** GS V 66 0: feed to the cutter, then partial cut. */
export const CUT_COMMAND = Buffer.from([0x1d, 0x56, 0x42, 0x00]);

const BOTTOM_MARGIN_LINES = 2;

/** The print modes a ticket line uses, combined with `|`. */
const Style = { Bold: 1, DoubleWidth: 16, DoubleHeight: 32 } as const;

/** ESC a n with n the digit, as ESC/POS also accepts. */
const ALIGN = { left: '\x1Ba0', center: '\x1Ba1' } as const;
type Align = keyof typeof ALIGN;

/**
 * Builds a ticket's bytes, wrapping every line to the paper's columns. Written out here rather
 * than through a driver library: a ticket is a few commands per line, and a library's
 * promise per command made rendering a ticket cost more than sending it.
 */
class TicketWriter {
  readonly #parts: Buffer[] = [];
  readonly columns: number;

  constructor(options: EscposOptions) {
    this.columns = columnsFor(options.widthMm);
    // ESC @ clears whatever style a previous job left behind; ESC t picks CP858.
    this.#command(`\x1B@\x1Bt${String.fromCharCode(cp858PageFor(options.model))}`);
  }

  /** Wrapped, one printed line per entry; double-width text gets half the columns. */
  paragraph(text: string, styles = 0, align: Align = 'left'): void {
    const width = styles & Style.DoubleWidth ? Math.floor(this.columns / 2) : this.columns;
    for (const line of wrapText(toPrintable(text), width)) this.#line(line, styles, align);
  }

  hanging(prefix: string, text: string, styles = 0): void {
    for (const line of wrapWithPrefix(toPrintable(prefix), toPrintable(text), this.columns)) this.#line(line, styles);
  }

  /** `text` after `prefix`, wrapped to what the amount leaves of the line; the amount flush right on its first line. */
  amountLine(prefix: string, text: string, amount: string, styles = 0): void {
    const right = toPrintable(amount);
    const lines = wrapWithPrefix(toPrintable(prefix), toPrintable(text), Math.max(prefix.length + 1, this.columns - right.length - 1));
    for (const [i, line] of lines.entries()) this.#line(i === 0 ? line.padEnd(this.columns - right.length) + right : line, styles);
  }

  rule(): void {
    this.#line('-'.repeat(this.columns));
  }

  /** Feeds the bottom margin (ESC d n) and cuts. */
  finish(): Buffer {
    this.#command(`\x1Bd${String.fromCharCode(BOTTOM_MARGIN_LINES)}`);
    this.#parts.push(CUT_COMMAND);
    return Buffer.concat(this.#parts);
  }

  /** One printed line of printable text: its size (ESC !) and weight (ESC E) set for it alone. */
  #line(text: string, styles = 0, align: Align = 'left'): void {
    if (align !== 'left') this.#command(ALIGN[align]);
    if (text.length > 0) {
      const size = (styles & Style.DoubleHeight ? 0x10 : 0) | (styles & Style.DoubleWidth ? 0x20 : 0);
      const bold = (styles & Style.Bold) !== 0;
      if (size) this.#command(`\x1B!${String.fromCharCode(size)}`);
      if (bold) this.#command('\x1BE1');
      this.#parts.push(encodePrintable(text));
      if (bold) this.#command('\x1BE0');
      if (size) this.#command('\x1B!\x00');
    }
    this.#command('\r\n');
    if (align !== 'left') this.#command(ALIGN.left);
  }

  #command(bytes: string): void {
    this.#parts.push(Buffer.from(bytes, 'latin1'));
  }
}

function formatQuantity(cantidad: number): string {
  return Number.isInteger(cantidad) ? String(cantidad) : String(Number(cantidad.toFixed(3)));
}

function writeLine(writer: TicketWriter, line: KitchenTicketLine, quantityWidth: number): void {
  const quantity = formatQuantity(line.cantidad).padStart(quantityWidth);
  writer.hanging(`${quantity} `, line.descripcion, Style.Bold | Style.DoubleHeight);
  const detailIndent = ' '.repeat(quantityWidth + 1);
  for (const modifier of line.modificadores ?? []) {
    writer.hanging(`${detailIndent}+ `, modifier);
  }
  if (line.comentario) writer.hanging(`${detailIndent}* `, line.comentario);
}

export function renderKitchenTicket(ticket: KitchenTicket, options: EscposOptions): Buffer {
  const writer = new TicketWriter(options);
  writer.paragraph(ticket.businessName, Style.Bold | Style.DoubleHeight, 'center');
  if (ticket.businessSubtitle) writer.paragraph(ticket.businessSubtitle, 0, 'center');
  if (ticket.isReprint) {
    writer.paragraph('REIMPRESION', Style.Bold | Style.DoubleHeight | Style.DoubleWidth, 'center');
  }
  if (ticket.title) writer.paragraph(ticket.title, Style.Bold | Style.DoubleHeight, 'center');
  writer.rule();
  writer.hanging('Folio: ', ticket.orderFolio, Style.Bold | Style.DoubleHeight);
  writer.hanging('Fecha: ', formatTicketDate(ticket.date, options.timeZone));
  writer.rule();
  const quantityWidth = Math.max(0, ...ticket.lines.map((l) => formatQuantity(l.cantidad).length));
  for (const line of ticket.lines) writeLine(writer, line, quantityWidth);
  if (ticket.orderNote) {
    writer.rule();
    for (const [i, noteLine] of ticket.orderNote.split(/\r?\n/).entries()) {
      writer.hanging(i === 0 ? 'NOTA: ' : '      ', noteLine, Style.Bold);
    }
  }
  return writer.finish();
}

/** Characters whose look tells an installer at once whether the code page is right. */
const CODE_PAGE_CHECK = 'áéíóú ÁÉÍÓÚ ñÑ üÜ ¿? ¡! €';

export function renderTestTicket(ticket: TestTicket, options: EscposOptions): Buffer {
  const writer = new TicketWriter(options);
  writer.paragraph(ticket.title, Style.Bold | Style.DoubleHeight, 'center');
  writer.paragraph(ticket.message, 0, 'center');
  writer.rule();
  if (ticket.printerName) writer.hanging('Impresora: ', ticket.printerName);
  writer.hanging('Fecha: ', formatTicketDate(ticket.date, options.timeZone));
  writer.hanging('Columnas: ', String(writer.columns));
  writer.hanging('Acentos: ', CODE_PAGE_CHECK);
  return writer.finish();
}

/**
 * The customer's ticket of an account: the business, the account's number and table, its lines
 * with their amounts, the totals with each tax, and the tenders already recorded on it.
 */
export function renderAccountTicket(ticket: AccountTicket, options: EscposOptions): Buffer {
  const writer = new TicketWriter(options);
  writer.paragraph(ticket.businessName, Style.Bold | Style.DoubleHeight, 'center');
  if (ticket.businessSubtitle) writer.paragraph(ticket.businessSubtitle, 0, 'center');
  if (ticket.isReprint) writer.paragraph('REIMPRESION', Style.Bold | Style.DoubleHeight | Style.DoubleWidth, 'center');
  writer.rule();
  writer.hanging('Cuenta: ', String(ticket.numcheque), Style.Bold | Style.DoubleHeight);
  writer.hanging('Folio: ', String(ticket.folio));
  if (ticket.mesa) writer.hanging('Mesa: ', ticket.mesa);
  if (ticket.mesero) writer.hanging('Mesero: ', ticket.mesero);
  if (ticket.personas > 0) writer.hanging('Personas: ', String(ticket.personas));
  writer.hanging('Fecha: ', formatTicketDate(ticket.date, options.timeZone));
  writer.rule();
  const quantityWidth = Math.max(0, ...ticket.lines.map((l) => formatQuantity(l.cantidad).length));
  for (const line of ticket.lines) {
    const prefix = line.modificador ? `${' '.repeat(quantityWidth + 1)}+ ` : `${formatQuantity(line.cantidad).padStart(quantityWidth)} `;
    writer.amountLine(prefix, line.descripcion, line.importe);
  }
  writer.rule();
  for (const [i, total] of ticket.totals.entries()) {
    writer.amountLine('', total.label, total.amount, i === ticket.totals.length - 1 ? Style.Bold : 0);
  }
  if (ticket.payments.length > 0) {
    writer.rule();
    for (const payment of ticket.payments) writer.amountLine('', payment.label, payment.amount);
  }
  return writer.finish();
}
