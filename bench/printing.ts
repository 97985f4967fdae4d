/**
 * render: kitchen tickets rendered per second in this process (renderKitchenTicket of a typical
 * 10-line ticket, 80 mm).
 * print: p50 from the API call (POST /print/{lk}/orden, with its Idempotency-Key) until the
 * virtual printer has the last byte, divided by the sum of two p50s measured interleaved with
 * it: a roundtrip (GET /productos, the whole path to the agent and back) and a bare TCP write of
 * the same bytes to the same virtual printer (connect, write, close, printer done). What is left
 * over is the gateway's registry lookup, the agent's idempotency transaction and the printer
 * status queries before and after the job.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { printOrderBody } from '../src/protocol/operations/printing.js';
import { printerCreate } from '../src/protocol/printers.js';
import { renderKitchenTicket } from '../src/printing/escpos.js';
import { kitchenTicketOf } from '../src/printing/dispatch.js';
import { SAMPLE_ORDER } from '../src/printing/preview-cli.js';
import { startVirtualPrinter, type VirtualPrinter } from '../src/printing/virtual-printer.js';
import type { BenchContext } from './run.js';
import { requestOk } from './http-client.js';
import { interleaved } from './measure.js';

async function renderRate(): Promise<number> {
  const order = printOrderBody.parse(SAMPLE_ORDER);
  const ticket = kitchenTicketOf(order, order.grupos[0]!, new Date());
  for (let i = 0; i < 200; i++) renderKitchenTicket(ticket, { widthMm: 80 });
  let rendered = 0;
  const started = performance.now();
  while (performance.now() - started < 2000) {
    renderKitchenTicket(ticket, { widthMm: 80 });
    rendered++;
  }
  return rendered / ((performance.now() - started) / 1000);
}

/** Sends `bytes` the plainest way and resolves once the printer has read them and hung up. */
function bareWrite(printer: VirtualPrinter, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(printer.port, printer.host, () => socket.end(bytes));
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.resume();
  });
}

export async function printing({ stack, licenseKey, apiKey }: BenchContext): Promise<string[]> {
  const perSecond = await renderRate();

  const printer = await startVirtualPrinter({ host: '127.0.0.1' });
  try {
    const owner = await stack.store.branchOwner(licenseKey);
    if (owner === null) throw new Error(`branch ${licenseKey} is not registered`);
    const { id: printerId } = await stack.store.printers.create(
      owner,
      printerCreate.parse({ licenseKey, printerIp: printer.host, printerPort: printer.port, displayName: 'Bench', kind: 'thermal', widthMm: 80 }),
    );
    const body = { ...SAMPLE_ORDER, grupos: SAMPLE_ORDER.grupos.map((g) => ({ ...g, printerId })) };
    const viaApi = async () => {
      await requestOk(`${stack.url}/print/${licenseKey}/orden`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'idempotency-key': randomUUID() },
        body,
      });
      return printer.waitForJob();
    };
    // The same bytes the agent sends: those of a ticket it printed.
    const { bytes } = await viaApi();
    const bare = async () => {
      await bareWrite(printer, bytes);
      await printer.waitForJob();
    };
    const roundtrip = () => requestOk(`${stack.url}/productos/${licenseKey}?pageSize=50`, { headers: { 'x-api-key': apiKey } });
    const [api, tcp, trip] = await interleaved([viaApi, bare, roundtrip], 200, 20);
    return [
      `render: ${Math.round(perSecond)} tickets/s  (10-line kitchen ticket, 80 mm, ${bytes.length} bytes; target ≥ 2,000)`,
      `print: ${(api / (trip + tcp)).toFixed(2)} × (roundtrip + bare TCP)  (API to last byte p50 ${api.toFixed(2)} ms, roundtrip p50 ${trip.toFixed(2)} ms, bare TCP p50 ${tcp.toFixed(2)} ms; target ≤ 1.3)`,
    ];
  } finally {
    await printer.close();
  }
}
