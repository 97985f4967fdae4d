import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import net from 'node:net';
import { addressRefusal, portRefusal, type PrinterRule } from '../protocol/printer-rule.js';
import {
  DLE_EOT,
  ESCPOS_STATUS,
  ESCPOS_STATUS_QUERIES,
  escposFault,
  isEscposStatusByte,
  type PrinterFault,
  TSPL_STATUS_QUERY,
  tsplFault,
} from './printer-status.js';

/** `not_sent` is the queue's: the job's turn at the printer came after its deadline (printer-queue.ts). */
export type PrintError = 'unreachable' | 'timeout' | 'refused' | 'not_allowed' | 'not_sent' | PrinterFault;

export type PrintResult = { status: 'printed'; bytes: number } | { status: 'failed'; error: PrintError; detail: string };

export interface PrinterAddress {
  host: string;
  port: number;
}

export interface SendOptions {
  /** A connect that takes longer means the printer is unreachable. Default 3000. */
  connectTimeoutMs?: number;
  /** A job the printer has not taken in (or a status it has not answered) by then is a timeout. Default 5000. */
  writeTimeoutMs?: number;
  /** Ask the printer's real-time status before and after the job. Default true. */
  checkStatus?: boolean;
  /** Silence this long after a status query means the printer does not support it. Default 300. */
  statusTimeoutMs?: number;
  /** Command language, which decides how status is asked. Default 'escpos'. */
  language?: 'escpos' | 'tspl';
  /**
   * Where printers may be: a target outside it fails `not_allowed` before any socket opens (a
   * host name once resolved, and only its checked address is connected to). Every print job
   * passes the agent's; the doctor's probe of an address the technician typed passes none.
   */
  rule?: PrinterRule;
}

const NOT_ALLOWED = 'ERR_PRINTER_NOT_ALLOWED';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** net.connect's DNS lookup, failing when an address the name resolves to is outside the rule. */
function checkedLookup(rule: PrinterRule) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const refused = addresses.map((a) => addressRefusal(a.address, rule)).find((r) => r !== undefined);
      if (refused) return callback(Object.assign(new Error(`resolves to an address that ${refused}`), { code: NOT_ALLOWED }), '');
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** How much is handed over at a time: the write timeout restarts with each chunk the printer takes. */
const WRITE_CHUNK_BYTES = 16 * 1024;

const CLOSE_WAIT_MS = 1000;

class PrintFailure extends Error {
  constructor(
    readonly error: PrintError,
    readonly detail: string,
  ) {
    super(detail);
  }
}

function errorCode(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'UNKNOWN';
}

function describe(target: PrinterAddress, what: string): string {
  return `${target.host}:${target.port}: ${what}`;
}

function connect(target: PrinterAddress, timeoutMs: number, rule: PrinterRule | undefined): Promise<net.Socket> {
  const refused = rule && (portRefusal(target.port, rule) ?? addressRefusal(target.host, rule));
  if (refused) return Promise.reject(new PrintFailure('not_allowed', describe(target, refused)));
  return new Promise((resolve, reject) => {
    // Status queries are a few bytes each way: Nagle plus delayed ACKs would add ~40 ms to each.
    const socket = net.connect({ host: target.host, port: target.port, noDelay: true, ...(rule ? { lookup: checkedLookup(rule) } : {}) });
    const fail = (failure: PrintFailure): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(failure);
    };
    const timer = setTimeout(() => fail(new PrintFailure('unreachable', describe(target, `no connection within ${timeoutMs} ms`))), timeoutMs);
    // Anything but a refusal (EHOSTUNREACH, ENETUNREACH, ENOTFOUND, ETIMEDOUT...) means no printer there.
    const onError = (err: Error): void => {
      const code = errorCode(err);
      const error = code === 'ECONNREFUSED' ? 'refused' : code === NOT_ALLOWED ? 'not_allowed' : 'unreachable';
      fail(new PrintFailure(error, describe(target, `${code} ${err.message}`)));
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

/** The printer's side of an open connection: bytes it sent back, and how the socket ended. */
class PrinterLink {
  private inbox: number[] = [];
  private wake: (() => void) | undefined;
  private failure: Error | undefined;
  private ended = false;

  constructor(
    readonly socket: net.Socket,
    private readonly target: PrinterAddress,
  ) {
    const notify = (): void => this.wake?.();
    socket.on('data', (chunk: Buffer) => {
      for (const byte of chunk) this.inbox.push(byte);
      notify();
    });
    socket.on('error', (err) => {
      this.failure = err;
      notify();
    });
    socket.on('close', () => {
      this.ended = true;
      notify();
    });
  }

  private dropped(err: Error | undefined): PrintFailure {
    const what = err ? `${errorCode(err)} ${err.message}` : 'the printer closed the connection';
    return new PrintFailure('offline', describe(this.target, what));
  }

  /** Resolves on the next byte, error or close from the printer, or after timeoutMs. */
  private nextEvent(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      this.wake = undefined;
    });
  }

  /** Next byte from the printer, or undefined if none comes within timeoutMs. */
  async readByte(timeoutMs: number): Promise<number | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const byte = this.inbox.shift();
      if (byte !== undefined) return byte;
      if (this.failure) throw this.dropped(this.failure);
      const remaining = deadline - Date.now();
      if (this.ended || remaining <= 0) return undefined;
      await this.nextEvent(remaining);
    }
  }

  discardInbox(): void {
    this.inbox = [];
  }

  /**
   * Resolves once every byte is handed to the kernel. The timeout is on progress, chunk by chunk:
   * a printer reads a long raster ticket only as fast as it prints it, so one that keeps taking
   * bytes is printing, and only one that takes nothing for `timeoutMs` has stopped. Reporting a
   * slow printer as failed would make the client retry a ticket that is coming out of it.
   */
  async write(bytes: Buffer, timeoutMs: number): Promise<void> {
    for (let offset = 0; offset < bytes.length || offset === 0; offset += WRITE_CHUNK_BYTES) {
      await this.writeChunk(bytes.subarray(offset, offset + WRITE_CHUNK_BYTES), timeoutMs, bytes.length - offset);
    }
  }

  private writeChunk(chunk: Buffer, timeoutMs: number, remaining: number): Promise<void> {
    if (this.ended || this.socket.writableEnded) return Promise.reject(this.dropped(this.failure));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const what = `${remaining} bytes not taken within ${timeoutMs} ms (printer not reading)`;
        reject(new PrintFailure('timeout', describe(this.target, what)));
      }, timeoutMs);
      this.socket.write(chunk, (err) => {
        clearTimeout(timer);
        if (err) reject(this.dropped(err));
        else resolve();
      });
    });
  }

  /**
   * Half-closes after the job and waits for the printer to close its side, which it does once it
   * has read everything: only then may the next job connect, as many printers serve one
   * connection at a time. A printer that keeps the connection open is let go after CLOSE_WAIT_MS.
   */
  async finish(): Promise<void> {
    this.socket.end();
    const deadline = Date.now() + CLOSE_WAIT_MS;
    // The job is already handed over: a reset instead of a clean close does not undo it.
    while (!this.ended && !this.failure && Date.now() < deadline) await this.nextEvent(deadline - Date.now());
  }
}

type StatusAnswer = { answered: false } | { answered: true; fault: PrinterFault | undefined };

/**
 * Asks the printer's status, after `job` when one is given: one write, as the printer reads the
 * same bytes in the same order either way.
 */
type StatusQuery = (link: PrinterLink, timeoutMs: number, job?: Buffer) => Promise<StatusAnswer>;

const ESCPOS_QUERY_BYTES = Buffer.from(ESCPOS_STATUS_QUERIES.flatMap((n) => [...DLE_EOT, n]));

const queryEscposStatus: StatusQuery = async (link, timeoutMs, job) => {
  link.discardInbox();
  await link.write(job ? Buffer.concat([job, ESCPOS_QUERY_BYTES]) : ESCPOS_QUERY_BYTES, timeoutMs);
  const answers: number[] = [];
  while (answers.length < ESCPOS_STATUS_QUERIES.length) {
    const byte = await link.readByte(timeoutMs);
    if (byte === undefined || !isEscposStatusByte(byte)) break;
    answers.push(byte);
  }
  if (answers.length === 0) return { answered: false };
  const [printer, offlineCause = ESCPOS_STATUS.base, paper = ESCPOS_STATUS.base] = answers as [number, ...number[]];
  return { answered: true, fault: escposFault(printer, offlineCause, paper) };
};

const queryTsplStatus: StatusQuery = async (link, timeoutMs, job) => {
  link.discardInbox();
  await link.write(job ? Buffer.concat([job, TSPL_STATUS_QUERY]) : TSPL_STATUS_QUERY, timeoutMs);
  const byte = await link.readByte(timeoutMs);
  return byte === undefined ? { answered: false } : { answered: true, fault: tsplFault(byte) };
};

const FAULT_DETAILS: Readonly<Record<PrinterFault, string>> = {
  paper_out: 'out of paper',
  cover_open: 'cover open',
  offline: 'printer offline',
};

function throwOnFault(answer: StatusAnswer, target: PrinterAddress, when: string): void {
  if (answer.answered && answer.fault) {
    throw new PrintFailure(answer.fault, describe(target, `${FAULT_DETAILS[answer.fault]} (${when})`));
  }
}

/** A job handed to a printer: what the printer said, and when it is free for the next job. */
export interface SentJob {
  /** Known once the printer has answered for the job (or, without status, once it has the bytes). */
  result: Promise<PrintResult>;
  /** Once the connection is closed, the printer's side first (PrinterLink.finish); never rejects. */
  closed: Promise<void>;
}

/**
 * Sends one job over raw TCP (port 9100 style). Status is asked before the job (a faulty printer
 * gets nothing, so nothing prints twice after a retry) and after it (paper that ran out mid-job).
 * Network and printer failures come back as a failed PrintResult, never as an exception. The
 * result does not wait for the close, which decides nothing about it: only the next job waits.
 */
export function startPrintJob(target: PrinterAddress, bytes: Buffer, opts: SendOptions = {}): SentJob {
  let link: PrinterLink | undefined;
  const result = deliver(target, bytes, opts, (opened) => (link = opened));
  const closed = result
    .then(
      (r) => (r.status === 'printed' ? link!.finish() : undefined),
      () => undefined,
    )
    .finally(() => link?.socket.destroy());
  return { result, closed };
}

async function deliver(target: PrinterAddress, bytes: Buffer, opts: SendOptions, opened: (link: PrinterLink) => void): Promise<PrintResult> {
  const { connectTimeoutMs = 3000, writeTimeoutMs = 5000, checkStatus = true, statusTimeoutMs = 300 } = opts;
  const queryStatus = opts.language === 'tspl' ? queryTsplStatus : queryEscposStatus;
  try {
    const link = new PrinterLink(await connect(target, connectTimeoutMs, opts.rule), target);
    opened(link);
    const before = checkStatus ? await queryStatus(link, statusTimeoutMs) : { answered: false as const };
    throwOnFault(before, target, 'before sending');
    if (!before.answered) await link.write(bytes, writeTimeoutMs);
    else {
      // It answered before, so silence now means it has stopped working, not that it cannot answer.
      const after = await queryStatus(link, writeTimeoutMs, bytes);
      if (!after.answered) {
        const what = `no status answer within ${writeTimeoutMs} ms after the job`;
        throw new PrintFailure('timeout', describe(target, what));
      }
      throwOnFault(after, target, 'after sending');
    }
    return { status: 'printed', bytes: bytes.length };
  } catch (err) {
    if (err instanceof PrintFailure) return { status: 'failed', error: err.error, detail: err.detail };
    throw err;
  }
}
