import net from 'node:net';
import { DLE_EOT, ESCPOS_STATUS, TSPL_STATUS, TSPL_STATUS_QUERY, type PrinterFault } from './printer-status.js';
import { type ReceivedJob, toReceivedJob } from './received-job.js';

export type VirtualPrinterStatus = 'ok' | PrinterFault;

export interface VirtualPrinterOptions {
  /** Loopback only by intent: the virtual printer stands in for a LAN printer on this machine. */
  host?: string;
  port?: number;
  status?: VirtualPrinterStatus;
  /** 'never_read' accepts connections and never reads them, like a hung printer. */
  mode?: 'normal' | 'never_read';
}

export interface VirtualPrinter {
  readonly host: string;
  readonly port: number;
  /** Every job received so far, oldest first. */
  readonly jobs: ReceivedJob[];
  /** The oldest job not yet returned by waitForJob, waiting for one if needed. */
  waitForJob(timeoutMs?: number): Promise<ReceivedJob>;
  /** Resolves once no connection is open: every job sent so far is in `jobs`. */
  idle(): Promise<void>;
  setStatus(status: VirtualPrinterStatus): void;
  close(): Promise<void>;
}

const { base, offline, coverOpen, paperEndStop, paperEnd } = ESCPOS_STATUS;

/** What an Epson-compatible printer answers to DLE EOT 1..4 in each state. */
const ESCPOS_ANSWERS: Readonly<Record<VirtualPrinterStatus, Readonly<Record<number, number>>>> = {
  ok: { 1: base, 2: base, 3: base, 4: base },
  paper_out: { 1: base | offline, 2: base | paperEndStop, 3: base, 4: base | paperEnd },
  cover_open: { 1: base | offline, 2: base | coverOpen, 3: base, 4: base },
  offline: { 1: base | offline, 2: base, 3: base, 4: base },
};

const TSPL_ANSWERS: Readonly<Record<VirtualPrinterStatus, number>> = {
  ok: 0,
  paper_out: TSPL_STATUS.paperOut,
  cover_open: TSPL_STATUS.headOpen,
  offline: TSPL_STATUS.paused,
};

type StatusQuery = { language: 'escpos'; n: number } | { language: 'tspl' };

/** DLE EOT n and ESC ! ? are both three bytes. */
const QUERY_LENGTH = 3;

/** Whether data at i holds `pattern`, or ends while still matching it. */
function matchAt(data: Buffer, i: number, pattern: readonly number[]): 'full' | 'partial' | 'none' {
  for (const [k, byte] of pattern.entries()) {
    if (i + k >= data.length) return 'partial';
    if (data[i + k] !== byte) return 'none';
  }
  return 'full';
}

/**
 * Splits a connection's bytes into status queries (answered at once, as real printers do) and
 * job bytes. ESC ! ? only counts as a TSPL query until the job shows itself to be ESC/POS, where
 * the same bytes are a print-mode command.
 */
class StatusQueryFilter {
  private pending = Buffer.alloc(0);
  private jobLanguage: 'unknown' | 'escpos' | 'tspl' = 'unknown';

  constructor(private readonly onQuery: (query: StatusQuery) => void) {}

  /** Returns the job bytes of the chunk; a possible query cut by the chunk's end waits for the next. */
  push(chunk: Buffer): Buffer {
    const data = Buffer.concat([this.pending, chunk]);
    const kept: Buffer[] = [];
    let start = 0;
    let end = data.length;
    for (let i = 0; i < data.length;) {
      const query = this.queryAt(data, i);
      if (query === 'incomplete') {
        end = i;
        break;
      }
      if (query) {
        kept.push(data.subarray(start, i));
        this.onQuery(query);
        i += QUERY_LENGTH;
        start = i;
        continue;
      }
      if (this.jobLanguage === 'unknown') {
        this.jobLanguage = /[A-Za-z\s]/.test(String.fromCharCode(data[i] ?? 0)) ? 'tspl' : 'escpos';
      }
      i += 1;
    }
    kept.push(data.subarray(start, end));
    this.pending = Buffer.from(data.subarray(end));
    return Buffer.concat(kept);
  }

  /** Bytes held back because they might have started a query that never completed. */
  flush(): Buffer {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return rest;
  }

  private queryAt(data: Buffer, i: number): StatusQuery | 'incomplete' | undefined {
    const dle = matchAt(data, i, DLE_EOT);
    if (dle === 'full') {
      const n = data[i + 2];
      return n === undefined ? 'incomplete' : { language: 'escpos', n };
    }
    if (dle === 'partial') return 'incomplete';
    if (this.jobLanguage === 'escpos') return undefined;
    const tspl = matchAt(data, i, [...TSPL_STATUS_QUERY]);
    if (tspl === 'none') return undefined;
    return tspl === 'full' ? { language: 'tspl' } : 'incomplete';
  }
}

export async function startVirtualPrinter(opts: VirtualPrinterOptions = {}): Promise<VirtualPrinter> {
  const { host = '127.0.0.1', port = 0, mode = 'normal' } = opts;
  let status = opts.status ?? 'ok';
  const jobs: ReceivedJob[] = [];
  const sockets = new Set<net.Socket>();
  let delivered = 0;
  let wakeWaiters: Array<() => void> = [];
  let idleWaiters: Array<() => void> = [];

  const record = (bytes: Buffer): void => {
    if (bytes.length === 0) return;
    jobs.push(toReceivedJob(bytes, new Date()));
    const waiters = wakeWaiters;
    wakeWaiters = [];
    for (const wake of waiters) wake();
  };

  /** Reads one connection's job, answering status queries, and records it when the sender closes. */
  const receive = (socket: net.Socket): void => {
    const received: Buffer[] = [];
    const filter = new StatusQueryFilter((query) => {
      const answer = query.language === 'tspl' ? TSPL_ANSWERS[status] : ESCPOS_ANSWERS[status][query.n];
      if (answer !== undefined) socket.write(Buffer.from([answer]));
    });
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      received.push(filter.flush());
      record(Buffer.concat(received));
    };
    socket.on('data', (chunk: Buffer) => received.push(filter.push(chunk)));
    socket.on('end', () => {
      finish();
      socket.end();
    });
    socket.on('close', finish);
  };

  const server = net.createServer({ pauseOnConnect: mode === 'never_read', noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    if (mode !== 'never_read') receive(socket);
    // Listening after receive(): a job is in `jobs` before its connection stops counting.
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size > 0) return;
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const wake of waiters) wake();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as net.AddressInfo;

  return {
    host,
    port: address.port,
    jobs,
    async waitForJob(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (delivered >= jobs.length) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error(`virtual printer ${host}:${address.port}: no job within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, remaining);
          wakeWaiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return jobs[delivered++] as ReceivedJob;
    },
    idle() {
      return sockets.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
    setStatus(next) {
      status = next;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
