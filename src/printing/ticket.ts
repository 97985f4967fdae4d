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
