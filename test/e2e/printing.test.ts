/**
 * Printing through the whole path: HTTP → gateway (printer registry) → WebSocket → agent →
 * ESC/POS or TSPL over TCP → a virtual printer on loopback, whose decoded text is checked.
 * Failures, idempotency and scoping: printing-failures.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDemoPrinters } from '../../src/demo/printers.js';
import { COFFEE_LINES, lines, order, printingTools, settle } from '../support/printing.js';
import { BRANCH, OTHER_API_KEY, OTHER_USERS_BRANCH, startTestStack, STRICT_BRANCH, type TestStack } from '../support/stack.js';

let stack: TestStack;
const { virtualPrinter, registerAt, print, printJob, cleanup, cleanups } = printingTools(() => stack);

beforeAll(async () => {
  stack = await startTestStack();
});

afterEach(cleanup);

afterAll(async () => {
  await stack?.stop();
});

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

  it('refuses a price with more than 4 decimals before anything prints, and keeps one with 4 as sent', async () => {
    // 1e-50 is 0.000…01 written out: 52 characters, past what the job's record holds. It was
    // refused by the database after the ticket had printed, and every retry printed it again.
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port);
    for (const price of [1e-50, 0.12345]) {
      const res = await print('orden', order([{ printerId, productos: COFFEE_LINES }], { price }));
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: 'body.price' })]);
    }
    await settle();
    expect(printer.jobs).toHaveLength(0);
    const res = await print('orden', order([{ printerId, productos: COFFEE_LINES }], { price: 12_345.6789 }));
    expect(res.status, res.text).toBe(200);
    expect(await printJob(res.body.orderRef)).toMatchObject({ price: '12345.6789' });
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
