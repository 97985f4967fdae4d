import { decodeEscpos, escposText } from './escpos-decode.js';
import { decodeTspl, tsplText } from './tspl-decode.js';

export type JobKind = 'escpos' | 'tspl';

export interface ReceivedJob {
  bytes: Buffer;
  /** Printed lines decoded from CP858, commands stripped; for labels, the TEXT of each label. */
  text: string;
  kind: JobKind;
  receivedAt: Date;
}

const TSPL_OPENING = /^\s*(SIZE|GAP|BLINE|CLS|DIRECTION|DENSITY|SPEED|CODEPAGE|REFERENCE|OFFSET|SET)\b/;

/** TSPL jobs are plain text that opens with a set-up command; anything else is taken as ESC/POS. */
export function detectJobKind(bytes: Uint8Array): JobKind {
  const opening = Buffer.from(bytes.subarray(0, 64)).toString('latin1');
  return TSPL_OPENING.test(opening) ? 'tspl' : 'escpos';
}

export function toReceivedJob(bytes: Buffer, receivedAt: Date): ReceivedJob {
  const kind = detectJobKind(bytes);
  const text = kind === 'tspl' ? tsplText(decodeTspl(bytes)) : escposText(decodeEscpos(bytes));
  return { bytes, text, kind, receivedAt };
}
