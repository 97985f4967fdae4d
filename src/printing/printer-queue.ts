import { TurnsByKey } from '../turns-by-key.js';
import { type PrintResult, type PrinterAddress, type SendOptions, startPrintJob } from './transport.js';

/**
 * One job at a time per printer (a printer interleaves bytes from concurrent connections or
 * refuses them), the next connecting once the last one's connection is closed; different
 * printers print in parallel.
 */
export class PrinterQueue {
  readonly #turns = new TurnsByKey();

  send(target: PrinterAddress, bytes: Buffer, opts?: SendOptions): Promise<PrintResult> {
    // The next job waits for this one's connection to close; its caller only for the result.
    const job = this.#turns.run(
      `${target.host}:${target.port}`,
      () => Promise.resolve(startPrintJob(target, bytes, opts)),
      (started) => started.closed,
    );
    return job.then((started) => started.result);
  }
}
