/**
 * Printing when it does not go well, end to end: printers that refuse, run out of paper, are
 * not there or hang (502 printer_failed, per printer); Idempotency-Key on print jobs; and
 * printers, branches and bodies the gateway refuses before anything prints.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { closedPort, LOOPBACK, timed, unreachablePort } from '../support/printer-ports.js';
import { COFFEE_LINES, CONNECT_TIMEOUT_MS, MARGIN_MS, order, printingTools, settle, WRITE_TIMEOUT_MS } from '../support/printing.js';
import { BRANCH, OTHER_API_KEY, OTHER_USERS_BRANCH, startTestStack, STRICT_BRANCH, type TestStack } from '../support/stack.js';

let stack: TestStack;
const { virtualPrinter, registerAt, print, hungPrinter, cleanup, cleanups } = printingTools(() => stack);

beforeAll(async () => {
  stack = await startTestStack();
});

afterEach(cleanup);

afterAll(async () => {
  await stack?.stop();
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

  it('keeps nothing of a request naming a printer not found: its key is free again, as if never sent', async () => {
    const printer = await virtualPrinter();
    const mineId = await registerAt(printer.port);
    const idempotencyKey = randomUUID();
    const body = order([
      { printerId: mineId, productos: COFFEE_LINES },
      { printerId: randomUUID(), productos: COFFEE_LINES },
    ]);
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await print('orden', body, { idempotencyKey });
      expect(res.status).toBe(404);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(res.body.code).toBe('printer_not_found');
    }
    expect(await stack.store.db.selectFrom('gw_idempotency').select('state').where('idem_key', '=', idempotencyKey).execute()).toEqual([]);
    await settle();
    expect(printer.jobs).toHaveLength(0);
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
      expect(res.body).toMatchObject({ code: 'printer_not_found', instance: `/print/${BRANCH}/orden`, printerId });
      expect(res.body.detail).not.toContain(printerId);
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
