/**
 * Printing through the whole path: HTTP → gateway (printer registry) → WebSocket → agent →
 * ESC/POS or TSPL over TCP → a virtual printer on loopback, whose decoded text is checked.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPrinters } from '../../src/demo/printers.js';
import { startVirtualPrinter, type VirtualPrinter, type VirtualPrinterOptions } from '../../src/printing/virtual-printer.js';
import { closedPort, LOOPBACK, timed, unreachablePort } from '../support/printer-ports.js';
import { API_KEY, BRANCH, OTHER_API_KEY, OTHER_USERS_BRANCH, startTestStack, STRICT_BRANCH, type TestStack } from '../support/stack.js';

/** Scheduling slack on top of a transport timeout. */
const MARGIN_MS = 1500;
/** The transport's defaults (src/printing/transport.ts), which the agent uses. */
const CONNECT_TIMEOUT_MS = 3000;
const WRITE_TIMEOUT_MS = 5000;

let stack: TestStack;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  stack = await startTestStack();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await stack?.stop();
});

async function virtualPrinter(opts: VirtualPrinterOptions = {}): Promise<VirtualPrinter> {
  const printer = await startVirtualPrinter({ host: LOOPBACK, ...opts });
  cleanups.push(() => printer.close());
  return printer;
}

async function registerAt(
  port: number,
  opts: { kind?: 'thermal' | 'label'; widthMm?: number; displayName?: string; licenseKey?: string; key?: string } = {},
): Promise<string> {
  const kind = opts.kind ?? 'thermal';
  const res = await stack.api('POST', '/print/printers', {
    key: opts.key ?? API_KEY,
    body: {
      licenseKey: opts.licenseKey ?? BRANCH,
      printerIp: LOOPBACK,
      printerPort: port,
      displayName: opts.displayName ?? 'Cocina caliente',
      kind,
      ...(kind === 'thermal' ? { widthMm: opts.widthMm ?? 80 } : {}),
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

function print(kind: 'orden' | 'prueba', body: unknown, opts: { key?: string; idempotencyKey?: string | null; licenseKey?: string } = {}) {
  const headers: Record<string, string> = {};
  if (opts.idempotencyKey !== null) headers['idempotency-key'] = opts.idempotencyKey ?? randomUUID();
  return stack.api('POST', `/print/${opts.licenseKey ?? BRANCH}/${kind}`, { body, headers, key: opts.key });
}

/** The agent's record of a print job, by its orderRef. */
function printJob(orderRef: string) {
  return stack.pos.get(BRANCH)!.db.selectFrom('ba_print_jobs').selectAll().where('id', '=', orderRef).executeTakeFirstOrThrow();
}

/** Lets a job that should not come arrive if it were coming. */
const settle = () => new Promise((r) => setTimeout(r, 300));

/**
 * A printer that hangs: it accepts, answers the status queries before the job as a ready printer
 * does, and then reads nothing more. The transport (src/printing/transport.ts) takes silence
 * after a printer has answered once as a printer that stopped working: a timeout.
 */
async function hungPrinter(): Promise<{ port: number; received: () => number }> {
  const sockets = new Set<net.Socket>();
  let received = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) => {
      received += chunk.length;
      socket.write(Buffer.from([0x12, 0x12, 0x12]));
      socket.pause();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as net.AddressInfo).port, received: () => received };
}

function order(grupos: unknown[], extra: Record<string, unknown> = {}) {
  return {
    orderFolio: 'A-77',
    businessName: 'Cafetería La Piña',
    businessSubtitle: 'Sucursal Centro',
    paymentMethod: 'Tarjeta de crédito',
    price: 1234.5,
    orderNote: '¡Urgente! Cliente alérgico a la nuez',
    grupos,
    ...extra,
  };
}

const COFFEE_LINES = [
  { cantidad: 2, descripcion: 'Café con leche', modificadores: ['Leche de almendra'], comentario: '¿Sin azúcar?' },
  { cantidad: 1, descripcion: 'Jalapeño relleno de queso' },
];

function lines(text: string): string[] {
  return text.split('\n');
}

describe('POST /print/{licenseKey}/prueba', () => {
  it('prints a test page on a thermal printer, accents intact', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port, { displayName: 'Cocina caliente' });
    const res = await print('prueba', { printerId });
    expect(res.status, res.text).toBe(200);
    const job = await printer.waitForJob();
    // orderRef: the print job's reference at the branch, a test page's too (seed).
    expect(res.body).toEqual({
      jobId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      orderRef: expect.stringMatching(/^\d+$/),
      results: [{ printerId, status: 'printed', bytes: job.bytes.length }],
    });
    const record = await printJob(res.body.orderRef);
    expect(record).toMatchObject({ kind: 'test', order_folio: null, price: null, payment_method: null });
    expect(JSON.parse(record.results)).toEqual(res.body.results);
    expect(job.kind).toBe('escpos');
    expect(lines(job.text)).toEqual(
      expect.arrayContaining(['PRUEBA', 'IMPRESORA OK - IGNORAR', 'Impresora: Cocina caliente', 'Columnas: 48', 'Acentos: áéíóú ÁÉÍÓÚ ñÑ üÜ ¿? ¡! €']),
    );
  });

  it("prints the caller's title and message on a 58 mm printer", async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port, { widthMm: 58 });
    const res = await print('prueba', { printerId, printerName: 'Barra fría', title: 'PRUEBA DE BARRA', message: 'Sólo una prueba, ¡ignórela!' });
    expect(res.status, res.text).toBe(200);
    expect(lines((await printer.waitForJob()).text)).toEqual(
      expect.arrayContaining(['PRUEBA DE BARRA', 'Sólo una prueba, ¡ignórela!', 'Impresora: Barra fría', 'Columnas: 32']),
    );
  });

  it.each([
    [76, 44],
    [112, 69],
  ])('prints on %i mm paper at its width: %i characters per line', async (widthMm, columns) => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port, { widthMm });
    const res = await print('prueba', { printerId, message: 'x'.repeat(200) });
    expect(res.status, res.text).toBe(200);
    const printed = lines((await printer.waitForJob()).text);
    expect(printed).toContain(`Columnas: ${columns}`);
    expect(Math.max(...printed.map((l) => l.length))).toBe(columns);
  });

  it('prints a test label on a label printer (TSPL)', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port, { kind: 'label', displayName: 'Etiquetas' });
    const res = await print('prueba', { printerId, message: 'Añejo' });
    expect(res.status, res.text).toBe(200);
    const job = await printer.waitForJob();
    expect(job.kind).toBe('tspl');
    expect(lines(job.text)).toEqual(expect.arrayContaining(['PRUEBA', 'Añejo', 'Etiquetas']));
  });
});

describe('POST /print/{licenseKey}/orden', () => {
  it('prints one kitchen ticket per group on its printer, copies as one job', async () => {
    const kitchen = await virtualPrinter();
    const bar = await virtualPrinter();
    const kitchenId = await registerAt(kitchen.port, { widthMm: 80 });
    const barId = await registerAt(bar.port, { widthMm: 58, displayName: 'Barra' });
    const res = await print(
      'orden',
      order([
        { printerId: kitchenId, titulo: 'COCINA', productos: COFFEE_LINES },
        { printerId: barId, titulo: 'BARRA', copias: 2, productos: [{ cantidad: 3, descripcion: 'Piña colada', modificadores: ['Sin alcohol'] }] },
      ]),
    );
    expect(res.status, res.text).toBe(200);
    const [kitchenJob, barJob] = await Promise.all([kitchen.waitForJob(), bar.waitForJob()]);
    expect(res.body).toEqual({
      jobId: expect.any(String),
      orderRef: expect.stringMatching(/^\d+$/),
      results: [
        { printerId: kitchenId, status: 'printed', bytes: kitchenJob.bytes.length },
        { printerId: barId, status: 'printed', bytes: barJob.bytes.length },
      ],
    });

    const text = lines(kitchenJob.text);
    for (const expected of [
      'Cafetería La Piña',
      'Sucursal Centro',
      'COCINA',
      'Folio: A-77',
      '2 Café con leche',
      '  + Leche de almendra',
      '  * ¿Sin azúcar?',
      '1 Jalapeño relleno de queso',
      'NOTA: ¡Urgente! Cliente alérgico a la nuez',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('REIMPRESION');
    // Price and payment method are stored for future receipts, never printed on the kitchen ticket (seed).
    expect(kitchenJob.text).not.toMatch(/1,234|1234|Tarjeta de crédito|Pago|Total/);
    expect(await printJob(res.body.orderRef)).toMatchObject({
      kind: 'order',
      order_folio: 'A-77',
      is_reprint: false,
      price: '1234.5',
      payment_method: 'Tarjeta de crédito',
    });
    expect(text.some((l) => /^Fecha: \d\d\/\d\d\/\d{4} \d\d:\d\d$/.test(l))).toBe(true);

    const barText = lines(barJob.text);
    expect(barText.filter((l) => l === 'BARRA')).toHaveLength(2);
    expect(barText.filter((l) => l === '3 Piña colada')).toHaveLength(2);
    expect(barText).not.toContain('Café con leche');
    await settle();
    expect(kitchen.jobs).toHaveLength(1);
    expect(bar.jobs).toHaveLength(1);
  });

  it('marks a reprint and takes a numeric folio and a price as text', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port);
    const res = await print('orden', order([{ printerId, productos: COFFEE_LINES }], { orderFolio: 1024, isReprint: true, price: 'MXN 99.00' }));
    expect(res.status, res.text).toBe(200);
    const job = await printer.waitForJob();
    expect(lines(job.text)).toEqual(expect.arrayContaining(['REIMPRESION', 'Folio: 1024']));
    expect(job.text).not.toContain('99.00');
    expect(await printJob(res.body.orderRef)).toMatchObject({ order_folio: '1024', is_reprint: true, price: 'MXN 99.00' });
  });

  it('prints two groups for the same printer one after the other, never interleaved', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port);
    const res = await print(
      'orden',
      order([
        { printerId, titulo: 'CALIENTES', productos: [{ cantidad: 1, descripcion: 'Sopa de tortilla' }] },
        { printerId, titulo: 'FRÍOS', productos: [{ cantidad: 1, descripcion: 'Ensalada césar' }] },
      ]),
    );
    expect(res.status, res.text).toBe(200);
    const jobs = [await printer.waitForJob(), await printer.waitForJob()].map((j) => j.text);
    expect(jobs.map((t) => (t.includes('CALIENTES') ? 'CALIENTES' : t.includes('FRÍOS') ? 'FRÍOS' : '?')).sort()).toEqual(['CALIENTES', 'FRÍOS']);
    expect(jobs.every((t) => t.match(/Folio: A-77/g)?.length === 1)).toBe(true);
  });

  it('prints one label per unit on a label printer', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port, { kind: 'label' });
    const res = await print('orden', order([{ printerId, productos: COFFEE_LINES }]));
    expect(res.status, res.text).toBe(200);
    const job = await printer.waitForJob();
    expect(job.kind).toBe('tspl');
    const labels = job.text.split('\n\n');
    expect(labels).toHaveLength(3);
    expect(labels[0]).toContain('Café con leche\n+ Leche de almendra\n* ¿Sin azúcar?');
    expect(labels[2]).toMatch(/3\/3\nJalapeño relleno de\nqueso$/);
  });

  it('refuses more labels than a roll holds for one label printer, before anything prints', async () => {
    const labels = await virtualPrinter();
    const thermal = await virtualPrinter();
    const labelId = await registerAt(labels.port, { kind: 'label' });
    const thermalId = await registerAt(thermal.port);
    const line = { cantidad: 9999, descripcion: 'Agua' };
    // 9,999 units make one line on a ticket, and 2 × 501 = 1,002 labels on the label printer.
    const res = await print(
      'orden',
      order([
        { printerId: thermalId, productos: [line] },
        { printerId: labelId, copias: 2, productos: [{ ...line, cantidad: 500.5 }] },
      ]),
    );
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.text).toContain('would print 1002 labels');
    await settle();
    expect([labels.jobs.length, thermal.jobs.length]).toEqual([0, 0]);
    const ticket = await print('orden', order([{ printerId: thermalId, copias: 10, productos: [line] }]));
    expect(ticket.status, ticket.text).toBe(200);
  });
});

describe('printers that do not take the job: 502 printer_failed with per-printer results', () => {
  it('reports a refused connection and paper out per printer, and the others still print', async () => {
    const good = await virtualPrinter();
    const noPaper = await virtualPrinter({ status: 'paper_out' });
    const goodId = await registerAt(good.port);
    const refusedId = await registerAt(await closedPort(), { displayName: 'Apagada' });
    const noPaperId = await registerAt(noPaper.port, { displayName: 'Sin papel' });
    const res = await print(
      'orden',
      order([
        { printerId: goodId, productos: COFFEE_LINES },
        { printerId: refusedId, productos: COFFEE_LINES },
        { printerId: noPaperId, productos: COFFEE_LINES },
      ]),
    );
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'printer_failed', status: 502, instance: `/print/${BRANCH}/orden`, orderRef: expect.stringMatching(/^\d+$/) });
    expect(res.body.detail).toContain('2 of 3');
    // No socket text or address reaches the client.
    expect(JSON.stringify([res.body.detail, res.body.results])).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|connect /);
    const job = await good.waitForJob();
    expect(res.body.results).toEqual([
      { printerId: goodId, status: 'printed', bytes: job.bytes.length },
      { printerId: refusedId, status: 'failed', error: 'refused', detail: expect.stringContaining('refused the connection') },
      { printerId: noPaperId, status: 'failed', error: 'paper_out', detail: 'The printer is out of paper.' },
    ]);
    await settle();
    expect(noPaper.jobs).toHaveLength(0);
  });

  it('reports paper out on a test page', async () => {
    const printer = await virtualPrinter({ status: 'paper_out' });
    const printerId = await registerAt(printer.port);
    const res = await print('prueba', { printerId });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({
      code: 'printer_failed',
      orderRef: expect.stringMatching(/^\d+$/),
      results: [{ printerId, status: 'failed', error: 'paper_out' }],
    });
  });

  it('reports a printer that is not there as unreachable, after the connect timeout', async () => {
    const printerId = await registerAt(await unreachablePort(cleanups), { displayName: 'Desconectada' });
    const { result: res, elapsedMs } = await timed(() => print('prueba', { printerId }));
    expect(res.status).toBe(502);
    expect(res.body.results).toEqual([{ printerId, status: 'failed', error: 'unreachable', detail: expect.stringContaining('did not answer') }]);
    expect(elapsedMs).toBeGreaterThanOrEqual(CONNECT_TIMEOUT_MS - 5);
    expect(elapsedMs).toBeLessThan(CONNECT_TIMEOUT_MS + MARGIN_MS);
  });

  it('reports a printer that accepts and then never reads as a timeout, within the write timeout', async () => {
    const hung = await hungPrinter();
    const printerId = await registerAt(hung.port, { displayName: 'Colgada' });
    const { result: res, elapsedMs } = await timed(() =>
      print(
        'orden',
        order([
          { printerId, titulo: 'COCINA', productos: COFFEE_LINES },
          { printerId, titulo: 'POSTRES', productos: COFFEE_LINES },
        ]),
      ),
    );
    expect(res.status).toBe(502);
    expect(res.body.code).toBe('printer_failed');
    // The second ticket for the same printer is not sent to wait out the same timeout again.
    expect(res.body.results).toEqual([
      { printerId, status: 'failed', error: 'timeout', detail: 'The printer stopped answering while it was printing.' },
      { printerId, status: 'failed', error: 'timeout', detail: expect.stringContaining('Not sent') },
    ]);
    expect(hung.received()).toBeGreaterThan(0);
    expect(elapsedMs).toBeGreaterThanOrEqual(WRITE_TIMEOUT_MS - 5);
    expect(elapsedMs).toBeLessThan(WRITE_TIMEOUT_MS + MARGIN_MS);
  });
});

describe('Idempotency-Key', () => {
  it('is not required (the seed sends none): without one, every request prints', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port);
    const first = await print('prueba', { printerId }, { idempotencyKey: null });
    expect(first.status, first.text).toBe(200);
    const second = await print('orden', order([{ printerId, productos: COFFEE_LINES }]), { idempotencyKey: null });
    expect(second.status, second.text).toBe(200);
    const third = await print('orden', order([{ printerId, productos: COFFEE_LINES }]), { idempotencyKey: null });
    expect(third.status, third.text).toBe(200);
    expect(new Set([first.body.orderRef, second.body.orderRef, third.body.orderRef]).size).toBe(3);
    await settle();
    expect(printer.jobs).toHaveLength(3);
  });

  it('an empty one is refused rather than taken as none', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port);
    const res = await print('prueba', { printerId }, { idempotencyKey: ' ' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('idempotency_key_missing');
    await settle();
    expect(printer.jobs).toHaveLength(0);
  });

  it('replays a finished print without printing again', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port);
    const body = order([{ printerId, productos: COFFEE_LINES }]);
    const idempotencyKey = randomUUID();
    const first = await print('orden', body, { idempotencyKey });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await print('orden', body, { idempotencyKey });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    await settle();
    expect(printer.jobs).toHaveLength(1);

    const reused = await print('orden', { ...body, orderFolio: 'A-78' }, { idempotencyKey });
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
  });

  it('answers a retry of a failed print with the same outcome and prints nothing again (a new key prints again)', async () => {
    const good = await virtualPrinter();
    const noPaper = await virtualPrinter({ status: 'paper_out' });
    const goodId = await registerAt(good.port);
    const noPaperId = await registerAt(noPaper.port);
    const body = order([
      { printerId: goodId, productos: COFFEE_LINES },
      { printerId: noPaperId, productos: COFFEE_LINES },
    ]);
    const idempotencyKey = randomUUID();
    const first = await print('orden', body, { idempotencyKey });
    expect(first.status).toBe(502);
    noPaper.setStatus('ok');
    const retry = await print('orden', body, { idempotencyKey });
    expect(retry.status).toBe(502);
    expect(retry.body.results).toEqual(first.body.results);
    await settle();
    expect(good.jobs).toHaveLength(1);
    expect(noPaper.jobs).toHaveLength(0);

    const failedGroups = body.grupos.filter((_g, i) => first.body.results[i].status === 'failed');
    const resend = await print('orden', { ...body, grupos: failedGroups });
    expect(resend.status, resend.text).toBe(200);
    expect((await noPaper.waitForJob()).text).toContain('Folio: A-77');
    expect(good.jobs).toHaveLength(1);
  });

  it("does not print twice even when the gateway lost its record: the agent's record answers", async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port);
    const idempotencyKey = randomUUID();
    const first = await print('prueba', { printerId }, { idempotencyKey });
    expect(first.status, first.text).toBe(200);
    await stack.store.db.deleteFrom('gw_idempotency').where('idem_key', '=', idempotencyKey).execute();
    const retry = await print('prueba', { printerId }, { idempotencyKey });
    expect(retry.status).toBe(200);
    expect(retry.body.results).toEqual(first.body.results);
    await settle();
    expect(printer.jobs).toHaveLength(1);
  });
});

describe('scoping and validation', () => {
  it("refuses printers that are not the user's printers of that branch: 404 printer_not_found, nothing printed", async () => {
    const printer = await virtualPrinter();
    const otherBranchId = await registerAt(printer.port, { licenseKey: STRICT_BRANCH });
    const foreignId = await registerAt(printer.port, { licenseKey: OTHER_USERS_BRANCH, key: OTHER_API_KEY });
    const mineId = await registerAt(printer.port);
    for (const printerId of [otherBranchId, foreignId, randomUUID()]) {
      const res = await print(
        'orden',
        order([
          { printerId: mineId, productos: COFFEE_LINES },
          { printerId, productos: COFFEE_LINES },
        ]),
      );
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'printer_not_found', instance: `/print/${BRANCH}/orden` });
      expect(res.body.detail).toContain(printerId);
    }
    expect((await print('prueba', { printerId: foreignId })).body.code).toBe('printer_not_found');
    await settle();
    expect(printer.jobs).toHaveLength(0);
  });

  it("refuses another user's branch with 403", async () => {
    const printer = await virtualPrinter();
    const foreignId = await registerAt(printer.port, { licenseKey: OTHER_USERS_BRANCH, key: OTHER_API_KEY });
    const res = await print('prueba', { printerId: foreignId }, { licenseKey: OTHER_USERS_BRANCH });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('branch_forbidden');
    await settle();
    expect(printer.jobs).toHaveLength(0);
  });

  it.each([
    ['no groups', { grupos: [] }, 'body.grupos'],
    ['a group without lines', { grupos: [{ printerId: randomUUID(), productos: [] }] }, 'body.grupos.0.productos'],
    ['a zero quantity', { grupos: [{ printerId: randomUUID(), productos: [{ cantidad: 0, descripcion: 'Café' }] }] }, 'body.grupos.0.productos.0.cantidad'],
    ['a printerId that is not one', { grupos: [{ printerId: '12', productos: COFFEE_LINES }] }, 'body.grupos.0.printerId'],
    ['eleven copies', { grupos: [{ printerId: randomUUID(), copias: 11, productos: COFFEE_LINES }] }, 'body.grupos.0.copias'],
    ['no business name', { businessName: '' }, 'body.businessName'],
  ])('answers 400 for %s', async (_what, change, path) => {
    const res = await print('orden', { ...order([{ printerId: randomUUID(), productos: COFFEE_LINES }]), ...change });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('ignores printer targets a client sends: only registered printers are printed to', async () => {
    const registered = await virtualPrinter();
    const smuggled = await virtualPrinter();
    const printerId = await registerAt(registered.port);
    const target = {
      printerIp: LOOPBACK,
      printerPort: smuggled.port,
      displayName: 'x',
      kind: 'thermal',
      widthMm: 80,
      labelWidthMm: 50,
      labelHeightMm: 25,
      labelGapMm: 2,
      labelDpi: 203,
      labelDensity: 8,
      labelSpeed: 4,
    };
    const res = await print('prueba', { printerId, printers: { [printerId]: target } });
    expect(res.status, res.text).toBe(200);
    await registered.waitForJob();
    await settle();
    expect(smuggled.jobs).toHaveLength(0);
  });
});

describe('demo printers', () => {
  it('registers a virtual printer per branch for its owner and serves what it printed as text and PNG', async () => {
    const demo = await startDemoPrinters(stack);
    cleanups.push(() => demo.stop());
    expect(demo.printers.map((p) => p.licenseKey).sort()).toEqual([BRANCH, OTHER_USERS_BRANCH, STRICT_BRANCH].sort());
    const mine = demo.printers.find((p) => p.licenseKey === BRANCH)!;
    const theirs = demo.printers.find((p) => p.licenseKey === OTHER_USERS_BRANCH)!;
    expect((await stack.api('GET', `/print/${BRANCH}/printers`)).body.data.map((p: { id: string }) => p.id)).toContain(mine.id);
    expect((await stack.api('GET', `/print/printers/${theirs.id}`, { key: OTHER_API_KEY })).status).toBe(200);

    expect((await fetch(mine.textUrl)).status).toBe(404);
    const res = await print('orden', order([{ printerId: mine.id, titulo: 'COCINA', productos: COFFEE_LINES }]));
    expect(res.status, res.text).toBe(200);
    const text = await fetch(mine.textUrl);
    expect(text.headers.get('content-type')).toMatch(/^text\/plain; charset=utf-8/);
    expect(lines(await text.text())).toEqual(expect.arrayContaining(['Folio: A-77', '2 Café con leche', '  * ¿Sin azúcar?']));
    const png = await fetch(mine.pngUrl);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const index = (await (await fetch(`${stack.url}/demo/printers`)).json()) as { data: Array<{ id: string }> };
    expect(index.data.find((p) => p.id === mine.id)).toMatchObject({ jobsReceived: 1, textUrl: mine.textUrl });

    // Everything else still reaches the API, and the demo paths go away with the demo printers.
    expect((await stack.api('GET', `/print/printers/${mine.id}`)).status).toBe(200);
    await demo.stop();
    expect((await fetch(mine.textUrl)).status).toBe(404);
    expect((await fetch(mine.textUrl)).headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
