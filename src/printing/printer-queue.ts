import { type PrintResult, type PrinterAddress, type SendOptions, sendToPrinter } from './transport.js';

/**
 * One job at a time per printer (a printer interleaves bytes from concurrent connections or
 * refuses them); different printers print in parallel.
 */
export class PrinterQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  send(target: PrinterAddress, bytes: Buffer, opts?: SendOptions): Promise<PrintResult> {
    const key = `${target.host}:${target.port}`;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const job = previous.then(() => sendToPrinter(target, bytes, opts));
    const tail = job.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return job;
  }
}
