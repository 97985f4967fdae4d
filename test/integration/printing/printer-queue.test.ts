import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { PrinterQueue } from '../../../src/printing/printer-queue.js';
import { sendToPrinter } from './send-to-printer.js';
import { type ScriptedPrinter, startScriptedPrinter } from './scripted-printer.js';
import { until } from '../../support/until.js';

const LOOPBACK = '127.0.0.1';
/** Each status answer takes this long, so a job holds its connection open for a while. */
const ANSWER_DELAY_MS = 60;

const printers: ScriptedPrinter[] = [];
afterEach(async () => {
  for (const printer of printers.splice(0)) await printer.close();
});

async function slowPrinter(): Promise<ScriptedPrinter> {
  const printer = await startScriptedPrinter(() => 0x12, ANSWER_DELAY_MS);
  printers.push(printer);
  return printer;
}

function job(marker: string): Buffer {
  return Buffer.from(marker.repeat(2000));
}

const STATUS_QUERY = new RegExp(String.raw`\x10\x04[\x01-\x04]`, 'g');

/** The connection's bytes without the DLE EOT queries around the job. */
function jobBytes(bytes: Buffer): string {
  return bytes.toString('latin1').replace(STATUS_QUERY, '');
}

describe('PrinterQueue', () => {
  it('never lets two jobs to the same printer overlap or interleave', async () => {
    const printer = await slowPrinter();
    const queue = new PrinterQueue();
    const target = { host: LOOPBACK, port: printer.port };
    const results = await Promise.all(['A', 'B', 'C'].map((marker) => queue.send(target, job(marker))));
    expect(results.map((r) => r.status)).toEqual(['printed', 'printed', 'printed']);
    await sleep(50);
    expect(printer.maxConcurrent).toBe(1);
    expect(printer.connections.map((c) => jobBytes(c.bytes))).toEqual(['A', 'B', 'C'].map((m) => m.repeat(2000)));
    const [first, second, third] = printer.connections;
    expect(second?.openedAt).toBeGreaterThanOrEqual(first?.endedAt ?? Infinity);
    expect(third?.openedAt).toBeGreaterThanOrEqual(second?.endedAt ?? Infinity);
  });

  it('keeps the queue going after a failed job', async () => {
    const printer = await slowPrinter();
    const queue = new PrinterQueue();
    const [failed, printed] = await Promise.all([
      queue.send({ host: LOOPBACK, port: printer.port }, job('A'), { writeTimeoutMs: 1, connectTimeoutMs: 1 }),
      queue.send({ host: LOOPBACK, port: printer.port }, job('B')),
    ]);
    expect(failed?.status).toBe('failed');
    expect(printed?.status).toBe('printed');
  });

  it('runs jobs for different printers in parallel', async () => {
    const one = await slowPrinter();
    const two = await slowPrinter();
    const queue = new PrinterQueue();
    const started = performance.now();
    await Promise.all([queue.send({ host: LOOPBACK, port: one.port }, job('A')), queue.send({ host: LOOPBACK, port: two.port }, job('B'))]);
    const elapsed = performance.now() - started;
    // Answered once each printer has answered for its job; the closes follow.
    await until(() => one.connections[0]?.endedAt !== undefined && two.connections[0]?.endedAt !== undefined, 2_000);
    const [a, b] = [one.connections[0], two.connections[0]];
    // Both connections were open at the same time.
    expect(b?.openedAt).toBeLessThan(a?.endedAt ?? 0);
    expect(a?.openedAt).toBeLessThan(b?.endedAt ?? 0);
    expect(elapsed).toBeLessThan(4 * ANSWER_DELAY_MS + 300);
  });

  it('answers a job once the printer has answered for it; the next job waits for its connection to close', async () => {
    // Answers at once and never closes its side: the client lets it go after a second.
    const printer = await startScriptedPrinter(() => 0x12, 0, true);
    printers.push(printer);
    const queue = new PrinterQueue();
    const target = { host: LOOPBACK, port: printer.port };
    const started = performance.now();
    const first = queue.send(target, job('A'));
    const second = queue.send(target, job('B'));
    expect(await first).toEqual({ status: 'printed', bytes: 2000 });
    expect(performance.now() - started).toBeLessThan(500);
    expect(printer.connections).toHaveLength(1);
    expect(await second).toEqual({ status: 'printed', bytes: 2000 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(printer.maxConcurrent).toBe(1);
  });

  it('is what keeps jobs apart: without it the same printer sees overlapping connections', async () => {
    const printer = await slowPrinter();
    const target = { host: LOOPBACK, port: printer.port };
    await Promise.all([sendToPrinter(target, job('A')), sendToPrinter(target, job('B'))]);
    expect(printer.maxConcurrent).toBe(2);
  });
});
