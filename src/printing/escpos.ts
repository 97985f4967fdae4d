import { Align, InMemory, Model, Printer, Style } from 'escpos-buffer';
import type { Capability } from 'escpos-buffer/dist/capabilities.js';
import type EpsonModule from 'escpos-buffer/dist/profile/Epson.js';
import { createRequire } from 'node:module';
import { cp858PageFor } from './code-pages.js';
import { toPrintable } from './cp858.js';
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

// escpos-buffer does not export its profiles; require() reaches the CommonJS module the same way
// under Node's ESM loader and under Vitest, whose default-import interop differ.
const require = createRequire(import.meta.url);
const { default: EpsonProfile } = require('escpos-buffer/dist/profile/Epson.js') as typeof EpsonModule;

// Feeding to the cutter (instead of the Epson profile's fixed ESC m) never cuts through the
// last line, whatever the head-to-cutter distance of the model.
class TicketProfile extends EpsonProfile {
  override async cutter(): Promise<void> {
    return this.connection.write(CUT_COMMAND);
  }
}

const BOTTOM_MARGIN_LINES = 2;

/** Builds a ticket on top of escpos-buffer, wrapping every line to the paper's columns. */
class TicketWriter {
  private constructor(
    private readonly printer: Printer,
    private readonly connection: InMemory,
    readonly columns: number,
  ) {}

  static async open(options: EscposOptions): Promise<TicketWriter> {
    const columns = columnsFor(options.widthMm);
    const capability: Capability = {
      profile: 'epson',
      brand: 'ESC/POS',
      model: options.model ?? 'generic',
      columns,
      fonts: [{ name: 'Font A', columns }],
      codepage: 'cp858',
      codepages: [{ code: 'cp858', command: `\x1Bt${String.fromCharCode(cp858PageFor(options.model))}` }],
      // ESC @ clears whatever style a previous job left behind.
      initialize: '\x1B@',
    };
    const connection = new InMemory();
    const printer = await Printer.CONNECT(new Model(new TicketProfile(capability)), connection);
    return new TicketWriter(printer, connection, columns);
  }

  /** Wrapped, one printed line per entry; double-width text gets half the columns. */
  async paragraph(text: string, styles = 0, align = Align.Left): Promise<void> {
    const width = styles & Style.DoubleWidth ? Math.floor(this.columns / 2) : this.columns;
    for (const line of wrapText(toPrintable(text), width)) {
      await this.printer.writeln(line, styles, align);
    }
  }

  async hanging(prefix: string, text: string, styles = 0): Promise<void> {
    for (const line of wrapWithPrefix(toPrintable(prefix), toPrintable(text), this.columns)) {
      await this.printer.writeln(line, styles);
    }
  }

  /** `text` after `prefix`, wrapped to what the amount leaves of the line; the amount flush right on its first line. */
  async amountLine(prefix: string, text: string, amount: string, styles = 0): Promise<void> {
    const right = toPrintable(amount);
    const lines = wrapWithPrefix(toPrintable(prefix), toPrintable(text), Math.max(prefix.length + 1, this.columns - right.length - 1));
    for (const [i, line] of lines.entries()) {
      await this.printer.writeln(i === 0 ? line.padEnd(this.columns - right.length) + right : line, styles);
    }
  }

  async rule(): Promise<void> {
    await this.printer.writeln('-'.repeat(this.columns));
  }

  async finish(): Promise<Buffer> {
    await this.printer.feed(BOTTOM_MARGIN_LINES);
    await this.printer.cutter();
    return this.connection.buffer();
  }
}

function formatQuantity(cantidad: number): string {
  return Number.isInteger(cantidad) ? String(cantidad) : String(Number(cantidad.toFixed(3)));
}

async function writeLine(writer: TicketWriter, line: KitchenTicketLine, quantityWidth: number): Promise<void> {
  const quantity = formatQuantity(line.cantidad).padStart(quantityWidth);
  await writer.hanging(`${quantity} `, line.descripcion, Style.Bold | Style.DoubleHeight);
  const detailIndent = ' '.repeat(quantityWidth + 1);
  for (const modifier of line.modificadores ?? []) {
    await writer.hanging(`${detailIndent}+ `, modifier);
  }
  if (line.comentario) await writer.hanging(`${detailIndent}* `, line.comentario);
}

export async function renderKitchenTicket(ticket: KitchenTicket, options: EscposOptions): Promise<Buffer> {
  const writer = await TicketWriter.open(options);
  await writer.paragraph(ticket.businessName, Style.Bold | Style.DoubleHeight, Align.Center);
  if (ticket.businessSubtitle) await writer.paragraph(ticket.businessSubtitle, 0, Align.Center);
  if (ticket.isReprint) {
    await writer.paragraph('REIMPRESION', Style.Bold | Style.DoubleHeight | Style.DoubleWidth, Align.Center);
  }
  if (ticket.title) await writer.paragraph(ticket.title, Style.Bold | Style.DoubleHeight, Align.Center);
  await writer.rule();
  await writer.hanging('Folio: ', ticket.orderFolio, Style.Bold | Style.DoubleHeight);
  await writer.hanging('Fecha: ', formatTicketDate(ticket.date, options.timeZone));
  await writer.rule();
  const quantityWidth = Math.max(0, ...ticket.lines.map((l) => formatQuantity(l.cantidad).length));
  for (const line of ticket.lines) await writeLine(writer, line, quantityWidth);
  if (ticket.orderNote) {
    await writer.rule();
    for (const [i, noteLine] of ticket.orderNote.split(/\r?\n/).entries()) {
      await writer.hanging(i === 0 ? 'NOTA: ' : '      ', noteLine, Style.Bold);
    }
  }
  return writer.finish();
}

/** Characters whose look tells an installer at once whether the code page is right. */
const CODE_PAGE_CHECK = 'áéíóú ÁÉÍÓÚ ñÑ üÜ ¿? ¡! €';

export async function renderTestTicket(ticket: TestTicket, options: EscposOptions): Promise<Buffer> {
  const writer = await TicketWriter.open(options);
  await writer.paragraph(ticket.title, Style.Bold | Style.DoubleHeight, Align.Center);
  await writer.paragraph(ticket.message, 0, Align.Center);
  await writer.rule();
  if (ticket.printerName) await writer.hanging('Impresora: ', ticket.printerName);
  await writer.hanging('Fecha: ', formatTicketDate(ticket.date, options.timeZone));
  await writer.hanging('Columnas: ', String(writer.columns));
  await writer.hanging('Acentos: ', CODE_PAGE_CHECK);
  return writer.finish();
}

/**
 * The customer's ticket of an account: the business, the account's number and table, its lines
 * with their amounts, the totals with each tax, and the tenders already recorded on it.
 */
export async function renderAccountTicket(ticket: AccountTicket, options: EscposOptions): Promise<Buffer> {
  const writer = await TicketWriter.open(options);
  await writer.paragraph(ticket.businessName, Style.Bold | Style.DoubleHeight, Align.Center);
  if (ticket.businessSubtitle) await writer.paragraph(ticket.businessSubtitle, 0, Align.Center);
  if (ticket.isReprint) await writer.paragraph('REIMPRESION', Style.Bold | Style.DoubleHeight | Style.DoubleWidth, Align.Center);
  await writer.rule();
  await writer.hanging('Cuenta: ', String(ticket.numcheque), Style.Bold | Style.DoubleHeight);
  await writer.hanging('Folio: ', String(ticket.folio));
  if (ticket.mesa) await writer.hanging('Mesa: ', ticket.mesa);
  if (ticket.mesero) await writer.hanging('Mesero: ', ticket.mesero);
  if (ticket.personas > 0) await writer.hanging('Personas: ', String(ticket.personas));
  await writer.hanging('Fecha: ', formatTicketDate(ticket.date, options.timeZone));
  await writer.rule();
  const quantityWidth = Math.max(0, ...ticket.lines.map((l) => formatQuantity(l.cantidad).length));
  for (const line of ticket.lines) {
    const prefix = line.modificador ? `${' '.repeat(quantityWidth + 1)}+ ` : `${formatQuantity(line.cantidad).padStart(quantityWidth)} `;
    await writer.amountLine(prefix, line.descripcion, line.importe);
  }
  await writer.rule();
  for (const [i, total] of ticket.totals.entries()) {
    await writer.amountLine('', total.label, total.amount, i === ticket.totals.length - 1 ? Style.Bold : 0);
  }
  if (ticket.payments.length > 0) {
    await writer.rule();
    for (const payment of ticket.payments) await writer.amountLine('', payment.label, payment.amount);
  }
  return writer.finish();
}
