import { startPrintJob, type PrintResult, type PrinterAddress, type SendOptions } from '../../../src/printing/transport.js';

/** One job sent straight to a printer, outside the queue: its result once its connection is closed. */
export async function sendToPrinter(target: PrinterAddress, bytes: Buffer, opts: SendOptions = {}): Promise<PrintResult> {
  const job = startPrintJob(target, bytes, opts);
  await job.closed;
  return job.result;
}
