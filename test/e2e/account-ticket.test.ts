/**
 * The customer's ticket of an account (POST /temp_ordenes/{licenseKey}/{folio}/imprimir with a
 * printerId): HTTP → gateway (printer registry) → agent, which prints the account in its
 * transaction and, once committed, sends the ESC/POS ticket over TCP to a virtual printer on
 * loopback, whose decoded text is checked. A printer failure leaves the account printed.
 */
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { renderAccountTicket } from '../../src/printing/escpos.js';
import type { AccountTicket } from '../../src/protocol/account-ticket.js';
import { startVirtualPrinter, type VirtualPrinter, type VirtualPrinterOptions } from '../../src/printing/virtual-printer.js';
import { LOOPBACK } from '../support/printer-ports.js';
import { API_KEY, BRANCH, OTHER_USERS_BRANCH, OTHER_API_KEY, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { expectGolden } from '../unit/printing/golden.js';
import { trapCommits } from '../support/commit-trap.js';
import { until } from '../support/until.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
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

async function registerAt(port: number, opts: { kind?: 'thermal' | 'label'; widthMm?: number; licenseKey?: string; key?: string } = {}): Promise<string> {
  const kind = opts.kind ?? 'thermal';
  const res = await stack.api('POST', '/print/printers', {
    key: opts.key ?? API_KEY,
    body: {
      licenseKey: opts.licenseKey ?? BRANCH,
      printerIp: LOOPBACK,
      printerPort: port,
      displayName: 'Caja',
      kind,
      ...(kind === 'thermal' ? { widthMm: opts.widthMm ?? 80 } : {}),
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

function write(path: string, body: unknown, key: string = randomUUID()): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': key } });
}

const imprimir = (folio: number, body: unknown, key?: string) => write(`/temp_ordenes/{lk}/${folio}/imprimir`, body, key);

const tacos = { movimiento: 1, idProducto: '3001', cantidad: 2 }; // 2 × 89.00 = 178.00
const refresco = { movimiento: 2, idProducto: '1005', cantidad: 1 }; // 29.90

async function openOrder(mesa: string, productos: unknown[] = [tacos, refresco]): Promise<number> {
  const res = await write('/temp_ordenes/{lk}', orderBody({ serie: 'A', mesa, idMesero: '01', productos }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.folio;
}

const header = (folio: number) => db.selectFrom('tempcheques').selectAll().where('folio', '=', folio).executeTakeFirstOrThrow();
/** What the printers said is recorded after the answer: read once the agent has written it. */
const settled = () => stack.agents.get(BRANCH)!.runner.drained();
const printJob = async (orderRef: string) => {
  await settled();
  return db.selectFrom('ba_print_jobs').selectAll().where('id', '=', orderRef).executeTakeFirstOrThrow();
};
const printJobCount = async () =>
  Number(
    (
      await db
        .selectFrom('ba_print_jobs')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const ultimofolio = async () => Number((await db.selectFrom('folios').select('ultimofolio').where('serie', '=', 'A').executeTakeFirstOrThrow()).ultimofolio);

/** Every printed line, trailing blanks dropped. */
const lines = (text: string) => text.split('\n').map((l) => l.trimEnd());

/** The amount printed flush right on the line that starts with `label`. */
function amountOn(printed: string[], label: string): string {
  const line = printed.find((l) => l.startsWith(label));
  expect(line, `no line starting with ${label} in\n${printed.join('\n')}`).toBeDefined();
  return line!.slice(label.length).trim();
}

describe('POST /temp_ordenes/{licenseKey}/{folio}/imprimir with printerId', () => {
  it('prints the account, then its ticket with the lines, the totals and each tax, which add up to the total', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port);
    const folio = await openOrder('T41');
    const key = randomUUID();
    const agentRecord = async () => {
      await settled();
      return JSON.parse((await db.selectFrom('ba_idempotency').select('result').where('idem_key', '=', key).executeTakeFirstOrThrow()).result);
    };
    // The account's transaction waits at its commit until the test has looked at the printer.
    const trap = await trapCommits(db, 'orders.print', 'hold');
    cleanups.push(() => trap.remove());
    const pending = imprimir(folio, { printerId }, key);
    await until(async () => (await trap.reached()) > 0);
    const jobsAtCommit = printer.jobs.length;
    await trap.release();
    const res = await pending;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const job = await printer.waitForJob();
    // Nothing had reached the printer when the account's transaction was about to commit, and
    // what the agent would answer a retry had the ticket never been sent says so.
    expect(jobsAtCommit).toBe(0);
    expect((await trap.recorded())[0]).toEqual(
      expect.objectContaining({
        folio,
        ticket: { orderRef: res.body.ticket.orderRef, results: [expect.objectContaining({ printerId, error: 'interrupted' })] },
      }),
    );
    const { jobId: _jobId, ...answered } = res.body;
    expect(await agentRecord()).toEqual(answered);
    expect(job.kind).toBe('escpos');
    expect(res.body).toMatchObject({
      folio,
      impresiones: 1,
      totales: { total: 207.9 },
      ticket: { orderRef: expect.stringMatching(/^\d+$/), results: [{ printerId, status: 'printed', bytes: job.bytes.length }] },
    });
    const { numcheque } = res.body;
    expect(await header(folio)).toMatchObject({ impreso: true, numcheque, impresiones: 1 });
    const record = await printJob(res.body.ticket.orderRef);
    expect(record).toMatchObject({ kind: 'account', order_folio: String(numcheque), is_reprint: false });
    expect(JSON.parse(record.results)).toEqual(res.body.ticket.results);

    const printed = lines(job.text);
    const empresa = await db.selectFrom('empresas').select('nombre').where('idempresa', '=', '0000000001').executeTakeFirstOrThrow();
    expect(printed[0]).toBe(empresa.nombre);
    expect(printed).toEqual(expect.arrayContaining([`Cuenta: ${numcheque}`, `Folio: ${folio}`, 'Mesa: T41', 'Mesero: Juan Pérez']));
    expect(printed).not.toContain('REIMPRESION');
    expect(amountOn(printed, '2 Tacos al pastor (3 pzas)')).toBe('178.00');
    expect(amountOn(printed, '1 Refresco de cola 355 ml')).toBe('29.90');
    const subtotal = amountOn(printed, 'Subtotal');
    const iva = amountOn(printed, 'Impuesto 1');
    expect(amountOn(printed, 'TOTAL')).toBe('207.90');
    expect(new Decimal(subtotal).plus(iva).toFixed(2)).toBe('207.90');
    expect(subtotal).toBe(res.body.totales.subtotalConDescuento.toFixed(2));
    expect(iva).toBe(res.body.totales.totalImpuesto1.toFixed(2));
    expect(Math.max(...printed.map((l) => l.length))).toBeLessThanOrEqual(48);
  });

  it('reprints with the same number, marked REIMPRESION, at the printer width', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port, { widthMm: 58 });
    const folio = await openOrder('T42');
    const first = await imprimir(folio, { printerId });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await printer.waitForJob();
    const again = await imprimir(folio, { printerId });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ numcheque: first.body.numcheque, impresiones: 2 });
    const printed = lines((await printer.waitForJob()).text);
    expect(printed).toEqual(expect.arrayContaining(['REIMPRESION', `Cuenta: ${first.body.numcheque}`]));
    expect(Math.max(...printed.map((l) => l.length))).toBeLessThanOrEqual(32);
    expect(await printJob(again.body.ticket.orderRef)).toMatchObject({ is_reprint: true });
  });

  it('prints the tenders a terminal already recorded, each in pesos', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port);
    const folio = await openOrder('T43');
    const schema = stack.agents.get(BRANCH)!.pos.schema;
    const row = (idformadepago: string, importe: string, tipodecambio: string) =>
      schema.completeRow('tempchequespagos', { folio, idformadepago, importe, propina: 0, tipodecambio, referencia: '', importe_cashdro: 0 });
    await db
      .insertInto('tempchequespagos')
      .values([row('EFE', '100.00', '1'), row('USD', '5.00', '17.25')])
      .execute();
    const res = await imprimir(folio, { printerId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const printed = lines((await printer.waitForJob()).text);
    expect(amountOn(printed, 'Efectivo')).toBe('100.00');
    expect(amountOn(printed, 'Dólares')).toBe('86.25');
  });

  it('without printerId prints the account only and answers no ticket', async () => {
    const folio = await openOrder('T44');
    const jobs = await printJobCount();
    const res = await imprimir(folio, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).not.toHaveProperty('ticket');
    expect(await printJobCount()).toBe(jobs);
  });
});

describe('a printer that does not take the ticket', () => {
  it('answers 502 printer_failed with the account printed all the same; a replay answers the same and prints nothing', async () => {
    const printer = await virtualPrinter({ status: 'paper_out' });
    const printerId = await registerAt(printer.port);
    const folio = await openOrder('T45');
    const before = await ultimofolio();
    const key = randomUUID();
    const res = await imprimir(folio, { printerId }, key);
    expect(res.status, JSON.stringify(res.body)).toBe(502);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      code: 'printer_failed',
      folio,
      numcheque: before + 1,
      impresiones: 1,
      totales: { total: 207.9 },
      orderRef: expect.stringMatching(/^\d+$/),
      results: [{ printerId, status: 'failed', error: 'paper_out', detail: 'The printer is out of paper.' }],
      jobId: expect.any(String),
    });
    expect(res.body.detail).toContain(`Account ${folio} is printed all the same`);
    // The account's print committed before the ticket was sent.
    expect(await header(folio)).toMatchObject({ impreso: true, numcheque: before + 1, impresiones: 1 });
    expect(JSON.parse((await printJob(res.body.orderRef)).results)).toEqual(res.body.results);
    expect(printer.jobs).toHaveLength(0);

    printer.setStatus('ok');
    const replay = await imprimir(folio, { printerId }, key);
    expect(replay.status).toBe(502);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(res.body);
    await printer.idle();
    expect(printer.jobs).toHaveLength(0);
    expect(await header(folio)).toMatchObject({ impresiones: 1 });

    // A new request is a reprint: same number, counted, and now the ticket prints.
    const retry = await imprimir(folio, { printerId });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body).toMatchObject({ numcheque: before + 1, impresiones: 2, ticket: { results: [{ status: 'printed' }] } });
    expect(lines((await printer.waitForJob()).text)).toContain(`Cuenta: ${before + 1}`);
  });

  it('answers an account the POS refuses (409) without sending anything to the printer', async () => {
    const printer = await virtualPrinter();
    const printerId = await registerAt(printer.port);
    const folio = await openOrder('T46');
    const cancelled = await write(`/temp_ordenes/{lk}/${folio}/cancelar`, { razon: 'cliente se fue' });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const jobs = await printJobCount();
    const res = await imprimir(folio, { printerId });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('account_not_open');
    expect(await printJobCount()).toBe(jobs);
    await printer.idle();
    expect(printer.jobs).toHaveLength(0);
  });
});

describe('a printerId that cannot take the ticket is refused before anything is written', () => {
  async function expectNothingWritten(folio: number, res: ApiResponse, status: number, code: string, printerId: string): Promise<void> {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ code, printerId });
    expect(await header(folio)).toMatchObject({ impreso: false, numcheque: 0, impresiones: 0 });
  }

  it("404 printer_not_found for an unknown id or another user's printer; 422 printer_not_thermal for a label printer", async () => {
    const printer = await virtualPrinter();
    const folio = await openOrder('T47');
    const numbering = await ultimofolio();
    const jobs = await printJobCount();

    const unknown = randomUUID();
    await expectNothingWritten(folio, await imprimir(folio, { printerId: unknown }), 404, 'printer_not_found', unknown);
    const othersPrinter = await registerAt(printer.port, { licenseKey: OTHER_USERS_BRANCH, key: OTHER_API_KEY });
    await expectNothingWritten(folio, await imprimir(folio, { printerId: othersPrinter }), 404, 'printer_not_found', othersPrinter);
    const labels = await registerAt(printer.port, { kind: 'label' });
    await expectNothingWritten(folio, await imprimir(folio, { printerId: labels }), 422, 'printer_not_thermal', labels);

    // Not even the Idempotency-Key was taken: the same key then prints.
    const key = randomUUID();
    await expectNothingWritten(folio, await imprimir(folio, { printerId: unknown }, key), 404, 'printer_not_found', unknown);
    expect(await ultimofolio()).toBe(numbering);
    expect(await printJobCount()).toBe(jobs);
    await printer.idle();
    expect(printer.jobs).toHaveLength(0);
    const thermal = await registerAt(printer.port);
    expect((await imprimir(folio, { printerId: thermal }, key)).status).toBe(200);
  });
});

describe('the ticket bytes', () => {
  const ticket: AccountTicket = {
    businessName: 'Cafetería La Piña',
    businessSubtitle: 'Sucursal Centro',
    numcheque: 1207,
    folio: 5531,
    mesa: 'T12',
    mesero: 'María López',
    personas: 3,
    isReprint: false,
    date: new Date('2026-11-21T20:05:00Z'),
    lines: [
      { cantidad: 2, descripcion: 'Tacos al pastor (3 pzas)', importe: '178.00', modificador: false },
      { cantidad: 1, descripcion: 'Sin cebolla', importe: '', modificador: true },
      { cantidad: 1.5, descripcion: 'Agua de jamaica 1 L con hielo y una rodaja de limón', importe: '57.75', modificador: false },
    ],
    totals: [
      { label: 'Descuento 10 %', amount: '' },
      { label: 'Subtotal', amount: '181.91' },
      { label: 'Impuesto 1', amount: '29.11' },
      { label: 'TOTAL', amount: '211.02' },
    ],
    payments: [{ label: 'Dólares', amount: '86.25' }],
  };

  it('match the golden 80 mm ticket', async () => {
    expectGolden('account-80mm', renderAccountTicket(ticket, { widthMm: 80, timeZone: 'America/Mexico_City' }));
  });

  it('match the golden 58 mm reprint', async () => {
    expectGolden('account-reprint-58mm', renderAccountTicket({ ...ticket, isReprint: true }, { widthMm: 58, timeZone: 'America/Mexico_City' }));
  });
});
