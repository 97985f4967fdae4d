import { LABEL_DEFAULTS } from '../protocol/printers.js';

export interface KitchenTicketLine {
  cantidad: number;
  descripcion: string;
  comentario?: string;
  modificadores?: string[];
}

export interface KitchenTicket {
  businessName: string;
  businessSubtitle?: string;
  /** Station or group heading, e.g. "COCINA" or "BARRA". */
  title?: string;
  orderFolio: string;
  isReprint: boolean;
  date: Date;
  orderNote?: string;
  lines: KitchenTicketLine[];
}

export interface TestTicket {
  title: string;
  message: string;
  printerName?: string;
  date: Date;
}

export interface LabelSettings {
  labelWidthMm: number;
  labelHeightMm: number;
  labelGapMm: number;
  labelDpi: number;
  labelDensity: number;
  labelSpeed: number;
}

export interface PrinterTarget extends LabelSettings {
  printerIp: string;
  printerPort: number;
  kind: 'thermal' | 'label';
  /** Required for thermal printers; ignored for label printers. */
  widthMm?: number;
  /** Only used to pick the code-page command; unknown or absent means generic Epson-compatible. */
  model?: string;
}

export const DEFAULT_LABEL_SETTINGS: LabelSettings = LABEL_DEFAULTS;

/** One line of a customer's ticket: `importe` with tax, after the line's own discount ('' for a free modifier). */
export interface AccountTicketLine {
  cantidad: number;
  descripcion: string;
  importe: string;
  /** A modifier of the line above it (tempcheqdet.modificador): printed indented. */
  modificador: boolean;
}

/** A label and an amount already formatted to the cent (decimal text, never a float). */
export interface TicketAmount {
  label: string;
  amount: string;
}

/** The customer's ticket of an account (POST /temp_ordenes/{licenseKey}/{folio}/imprimir with printerId). */
export interface AccountTicket {
  businessName: string;
  businessSubtitle?: string;
  numcheque: number;
  folio: number;
  mesa: string;
  mesero: string;
  personas: number;
  isReprint: boolean;
  date: Date;
  lines: AccountTicketLine[];
  /** Subtotal, discounts, each tax and the total, in the order printed; the last is the total. */
  totals: TicketAmount[];
  /** The tenders already recorded on the account, each in pesos. */
  payments: TicketAmount[];
}
