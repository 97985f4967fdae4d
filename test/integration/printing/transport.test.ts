import { setTimeout as sleep } from 'node:timers/promises';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { renderKitchenTicket } from '../../../src/printing/escpos.js';
import { sendToPrinter } from './send-to-printer.js';
import { renderLabels } from '../../../src/printing/tspl.js';
import { type VirtualPrinter, startVirtualPrinter } from '../../../src/printing/virtual-printer.js';
import { TIME_ZONE, kitchenTicket, labelTicket } from '../../unit/printing/fixtures.js';
import { closedPort, connects, LOOPBACK, timed, unreachablePort } from '../../support/printer-ports.js';
import { startScriptedPrinter } from './scripted-printer.js';

/** Scheduling slack allowed on top of a timeout. */
const MARGIN_MS = 400;
/** Larger than what loopback socket buffers absorb from a peer that never reads (a few MB). */
const BIGGER_THAN_SOCKET_BUFFERS = 32 * 1024 * 1024;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function virtualPrinter(opts?: Parameters<typeof startVirtualPrinter>[0]): Promise<VirtualPrinter> {
  const printer = await startVirtualPrinter(opts);
  cleanups.push(() => printer.close());
  return printer;
}

describe('sendToPrinter over real TCP', () => {
  it('delivers a kitchen ticket whose decoded text keeps its accents', async () => {
    const printer = await virtualPrinter();
    const bytes = renderKitchenTicket(kitchenTicket, { widthMm: 80, timeZone: TIME_ZONE });
    const result = await sendToPrinter({ host: printer.host, port: printer.port }, bytes);
    expect(result).toEqual({ status: 'printed', bytes: bytes.length });
    const job = await printer.waitForJob();
    expect(job.kind).toBe('escpos');
    expect(job.bytes.equals(bytes)).toBe(true);
    const lines = job.text.split('\n');
    for (const expected of [
      'Cafetería La Piña',
      'Folio: A-1024',
      'Fecha: 05/03/2025 14:07',
      '   * Bien dorados, € 12 extra',
      ' 2 Café con leche',
      '   * ¿Sin azúcar?',
      ' 1 Agua fresca de Piña natural, tamaño grande',
      '12 Jalapeño relleno de queso',
      'NOTA: ¡Urgente! Cliente alérgico a la nuez,',
    ]) {
      expect(lines).toContain(expected);
    }
  });

  it('delivers a label job and reads its labels back', async () => {
    const printer = await virtualPrinter();
    const bytes = renderLabels(labelTicket, { timeZone: TIME_ZONE });
    const result = await sendToPrinter({ host: printer.host, port: printer.port }, bytes, { language: 'tspl' });
    expect(result).toEqual({ status: 'printed', bytes: bytes.length });
    const job = await printer.waitForJob();
    expect(job.kind).toBe('tspl');
    expect(job.bytes.equals(bytes)).toBe(true);
    const labels = job.text.split('\n\n');
    expect(labels).toHaveLength(4);
    expect(labels[0]).toContain('Café con leche\n+ Leche de "almendra"\n* ¿Sin azúcar?');
    expect(labels[3]).toContain('Piña colada');
  });

  it('reports a closed port as refused, at once', async () => {
    const port = await closedPort();
    const { result, elapsedMs } = await timed(() => sendToPrinter({ host: LOOPBACK, port }, Buffer.from('x')));
    expect(result).toMatchObject({ status: 'failed', error: 'refused' });
    expect(elapsedMs).toBeLessThan(MARGIN_MS);
  });

  it('reports a connect that does not complete as unreachable, within connectTimeoutMs', async () => {
    const port = await unreachablePort(cleanups);
    const connectTimeoutMs = 300;
    const { result, elapsedMs } = await timed(() => sendToPrinter({ host: LOOPBACK, port }, Buffer.from('x'), { connectTimeoutMs }));
    expect(result).toMatchObject({ status: 'failed', error: 'unreachable' });
    expect(elapsedMs).toBeGreaterThanOrEqual(connectTimeoutMs - 5);
    expect(elapsedMs).toBeLessThan(connectTimeoutMs + MARGIN_MS);
  });

  it('reports a printer that accepts but never reads as a timeout, within writeTimeoutMs', async () => {
    const printer = await virtualPrinter({ mode: 'never_read' });
    const writeTimeoutMs = 800;
    const job = Buffer.alloc(BIGGER_THAN_SOCKET_BUFFERS, 0x41);
    const { result, elapsedMs } = await timed(() => sendToPrinter({ host: printer.host, port: printer.port }, job, { writeTimeoutMs, checkStatus: false }));
    expect(result).toMatchObject({ status: 'failed', error: 'timeout' });
    expect(elapsedMs).toBeGreaterThanOrEqual(writeTimeoutMs - 5);
    expect(elapsedMs).toBeLessThan(writeTimeoutMs + MARGIN_MS);
  });

  it('waits for a slow printer that keeps reading, however long the whole job takes', async () => {
    // A raster ticket goes only as fast as the paper. This printer takes 32 MB/s, so 64 MB take
    // about two seconds, four times the write timeout, yet it never stops taking bytes for
    // long: loopback's flow control hands them over in bursts well under 100 ms apart.
    let received = 0;
    const server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        socket.pause();
        setTimeout(() => socket.resume(), (chunk.length / (32 * 1024 * 1024)) * 1000);
      });
      socket.on('end', () => socket.end());
    });
    await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const job = Buffer.alloc(64 * 1024 * 1024, 0x41);
    const writeTimeoutMs = 500;
    const port = (server.address() as net.AddressInfo).port;
    const { result, elapsedMs } = await timed(() => sendToPrinter({ host: LOOPBACK, port }, job, { writeTimeoutMs, checkStatus: false }));
    expect(result).toEqual({ status: 'printed', bytes: job.length });
    expect(elapsedMs).toBeGreaterThan(writeTimeoutMs);
    expect(received).toBe(job.length);
  });

  it('with status checks on, a silent printer costs only the status wait before the write timeout', async () => {
    const printer = await virtualPrinter({ mode: 'never_read' });
    const writeTimeoutMs = 800;
    const statusTimeoutMs = 300;
    const job = Buffer.alloc(BIGGER_THAN_SOCKET_BUFFERS, 0x41);
    const { result, elapsedMs } = await timed(() => sendToPrinter({ host: printer.host, port: printer.port }, job, { writeTimeoutMs, statusTimeoutMs }));
    expect(result).toMatchObject({ status: 'failed', error: 'timeout' });
    expect(elapsedMs).toBeLessThan(statusTimeoutMs + writeTimeoutMs + MARGIN_MS);
  });

  it.each([
    ['paper_out', 'escpos'],
    ['cover_open', 'escpos'],
    ['offline', 'escpos'],
    ['paper_out', 'tspl'],
    ['cover_open', 'tspl'],
    ['offline', 'tspl'],
  ] as const)('reports %s from the %s status query and sends nothing', async (status, language) => {
    const printer = await virtualPrinter({ status });
    const bytes = language === 'tspl' ? renderLabels(labelTicket) : renderKitchenTicket(kitchenTicket, { widthMm: 58 });
    const { result, elapsedMs } = await timed(() => sendToPrinter({ host: printer.host, port: printer.port }, bytes, { language }));
    expect(result).toMatchObject({ status: 'failed', error: status });
    expect(elapsedMs).toBeLessThan(MARGIN_MS);
    await sleep(50);
    expect(printer.jobs).toHaveLength(0);
  });

  it('prints again once the fault is cleared', async () => {
    const printer = await virtualPrinter({ status: 'cover_open' });
    const target = { host: printer.host, port: printer.port };
    expect(await sendToPrinter(target, Buffer.from('hola\n'))).toMatchObject({ error: 'cover_open' });
    printer.setStatus('ok');
    expect(await sendToPrinter(target, Buffer.from('hola\n'))).toMatchObject({ status: 'printed' });
    expect((await printer.waitForJob()).text).toBe('hola');
  });

  it('answers status queries split across TCP segments', async () => {
    const printer = await virtualPrinter({ status: 'paper_out' });
    const socket = await connects(printer.port, 1000);
    if (!socket) throw new Error('no connection');
    cleanups.push(() => {
      socket.destroy();
    });
    const answers: number[] = [];
    socket.on('data', (chunk: Buffer) => answers.push(...chunk));
    socket.write(Buffer.from([0x10]));
    await sleep(30);
    socket.write(Buffer.from([0x04, 0x04]));
    await sleep(50);
    expect(answers).toEqual([0x72]);
  });

  it("the virtual printer is idle only once every connection closed, with each one's job recorded", async () => {
    const printer = await virtualPrinter();
    const socket = await connects(printer.port, 1000);
    if (!socket) throw new Error('no connection');
    cleanups.push(() => {
      socket.destroy();
    });
    let idle = false;
    const settled = printer.idle().then(() => (idle = true));
    socket.write('job');
    await sleep(50);
    expect(idle).toBe(false);
    // A sender that gives up on the close and resets: the job is recorded all the same.
    socket.destroy();
    await settled;
    expect(printer.jobs.map((j) => j.bytes.toString())).toEqual(['job']);
  });

  it('detects paper running out during the job from the status after it', async () => {
    const ok = 0x12;
    const paperEnd = 0x72;
    const printer = await startScriptedPrinter((k) => (k < 3 ? ok : k === 5 ? paperEnd : ok));
    cleanups.push(() => printer.close());
    const result = await sendToPrinter({ host: LOOPBACK, port: printer.port }, Buffer.from('job'));
    expect(result).toMatchObject({ status: 'failed', error: 'paper_out' });
    expect(result.status === 'failed' && result.detail).toContain('after sending');
  });

  it('prints on a printer without status support after the short status wait', async () => {
    const printer = await startScriptedPrinter(() => undefined);
    cleanups.push(() => printer.close());
    const statusTimeoutMs = 200;
    const { result, elapsedMs } = await timed(() => sendToPrinter({ host: LOOPBACK, port: printer.port }, Buffer.from('job'), { statusTimeoutMs }));
    expect(result).toEqual({ status: 'printed', bytes: 3 });
    expect(elapsedMs).toBeGreaterThanOrEqual(statusTimeoutMs - 5);
    expect(elapsedMs).toBeLessThan(statusTimeoutMs + MARGIN_MS);
    await sleep(50);
    expect(printer.connections[0]?.bytes.subarray(-3).toString()).toBe('job');
  });

  it('reports a printer that answered before the job and falls silent after it as a timeout', async () => {
    const printer = await startScriptedPrinter((k) => (k < 3 ? 0x12 : undefined));
    cleanups.push(() => printer.close());
    const writeTimeoutMs = 500;
    const { result, elapsedMs } = await timed(() => sendToPrinter({ host: LOOPBACK, port: printer.port }, Buffer.from('job'), { writeTimeoutMs }));
    expect(result).toMatchObject({ status: 'failed', error: 'timeout' });
    expect(elapsedMs).toBeGreaterThanOrEqual(writeTimeoutMs - 5);
    expect(elapsedMs).toBeLessThan(writeTimeoutMs + MARGIN_MS);
  });
});
