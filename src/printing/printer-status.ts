/**
 * Real-time status queries and the meaning of their answers, shared by the transport (which asks)
 * and the virtual printer (which answers).
 */

export type PrinterFault = 'paper_out' | 'cover_open' | 'offline';

/** ESC/POS DLE EOT n: 1 printer status, 2 off-line cause, 3 error cause, 4 roll paper sensor. */
export const DLE_EOT = [0x10, 0x04] as const;
export const ESCPOS_STATUS_QUERIES = [1, 2, 4] as const;

/** TSPL <ESC>!? answers one byte: 0 ready, otherwise a bit per condition. */
export const TSPL_STATUS_QUERY = Buffer.from([0x1b, 0x21, 0x3f]);

export const ESCPOS_STATUS = {
  /** Bits 1 and 4 are always on, bits 0 and 7 always off: how a status byte is recognised. */
  base: 0x12,
  signatureMask: 0x93,
  offline: 0x08,
  coverOpen: 0x04,
  paperEndStop: 0x20,
  errorOccurred: 0x40,
  paperEnd: 0x60,
} as const;

/** The other bits (paper jam 0x02, ribbon out 0x08, temperature 0x80) all stop the printer: offline. */
export const TSPL_STATUS = {
  headOpen: 0x01,
  paperOut: 0x04,
  paused: 0x10,
  printing: 0x20,
  coverOpen: 0x40,
} as const;

export function isEscposStatusByte(byte: number): boolean {
  return (byte & ESCPOS_STATUS.signatureMask) === ESCPOS_STATUS.base;
}

/** Answers to DLE EOT 1, 2 and 4, in that order. */
export function escposFault(printer: number, offlineCause: number, paper: number): PrinterFault | undefined {
  if (offlineCause & ESCPOS_STATUS.coverOpen) return 'cover_open';
  if (paper & ESCPOS_STATUS.paperEnd || offlineCause & ESCPOS_STATUS.paperEndStop) return 'paper_out';
  if (printer & ESCPOS_STATUS.offline || offlineCause & ESCPOS_STATUS.errorOccurred) return 'offline';
  return undefined;
}

export function tsplFault(status: number): PrinterFault | undefined {
  if (status & (TSPL_STATUS.headOpen | TSPL_STATUS.coverOpen)) return 'cover_open';
  if (status & TSPL_STATUS.paperOut) return 'paper_out';
  if (status & ~TSPL_STATUS.printing) return 'offline';
  return undefined;
}
