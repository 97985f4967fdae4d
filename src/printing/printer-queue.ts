import { type PrintResult, type PrinterAddress, type SendOptions, startPrintJob } from './transport.js';

/**
 * One job at a time per printer (a printer interleaves bytes from concurrent connections or
 * refuses them), the next connecting once the last one's connection is closed; different
 * printers print in parallel.
 */
export class PrinterQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  send(target: PrinterAddress, bytes: Buffer, opts?: SendOptions): Promise<PrintResult> {
    const key = `${target.host}:${target.port}`;
    const previous = this.tails.get(key) ?? Promise.resolve();
    const job = previous.then(() => startPrintJob(target, bytes, opts));
    // The next job waits for this one's connection to close; its caller only for the result.
    const tail = job.then((j) => j.closed);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return job.then((j) => j.result);
  }
}
