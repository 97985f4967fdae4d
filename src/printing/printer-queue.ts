import { TurnsByKey } from '../turns-by-key.js';
import { type PrintResult, type PrinterAddress, type SendOptions, startPrintJob } from './transport.js';

/**
 * One job at a time per printer (a printer interleaves bytes from concurrent connections or
 * refuses them), the next connecting once the last one's connection is closed; different
 * printers print in parallel.
 */
export class PrinterQueue {
  readonly #turns = new TurnsByKey();

  /**
   * Sends once the printer is free. A job whose turn comes after `notAfter` (performance.now())
   * is not sent: its caller was answered a timeout already, and a client that sends again without
   * an Idempotency-Key (the seed sends none) would get the ticket twice.
   */
  send(target: PrinterAddress, bytes: Buffer, opts?: SendOptions, notAfter = Infinity): Promise<PrintResult> {
    // The next job waits for this one's connection to close; its caller only for the result.
    const job = this.#turns.run(
      `${target.host}:${target.port}`,
      () => Promise.resolve(performance.now() > notAfter ? NOT_SENT : startPrintJob(target, bytes, opts)),
      (started) => started.closed,
    );
    return job.then((started) => started.result);
  }
}

const NOT_SENT = {
  result: Promise.resolve<PrintResult>({ status: 'failed', error: 'not_sent', detail: 'its turn at the printer came after the job had timed out' }),
  closed: Promise.resolve(),
};
