/**
 * A fault sweep over the writes: each write is first run clean to count its statements up to
 * its idempotency record (the transaction's last), then made to fail right after its k-th
 * statement, through the whole path (HTTP, gateway, WebSocket, agent, real PostgreSQL):
 * - an error, for every k: a clean problem, every POS table and the agent's records as they were,
 *   nothing printed, and a retry with the same Idempotency-Key that applies the write once, with
 *   the rows a write that never failed leaves, and whose replay writes nothing;
 * - the agent's database link cut (odd k and the last), or a deadlock or duplicate key midway:
 *   run again by the agent itself, once, and answered as a clean write;
 * - the database gone (first, middle, last k), or a lock timeout midway: a 503, nothing written,
 *   and the retry applies the write once;
 * - a COMMIT whose confirmation the cut link lost: answered as committed, applied once; with the
 *   database gone as well, a 503 whose retry finds the write committed and does not repeat it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunnerOptions } from '../../src/agent/runner.js';
import type { PosRuntime } from '../../src/pos/runtime.js';
import type { PosDb } from '../../src/pos/schema.js';
import { refresco, sinCebolla, tacos } from '../support/accounts.js';
import { orderBody } from '../support/order-body.js';
import { LOOPBACK } from '../support/printer-ports.js';
import { COFFEE_LINES, order as printOrder } from '../support/printing.js';
import { startVirtualPrinter, type VirtualPrinter } from '../../src/printing/virtual-printer.js';
import { tacos as tacosProduct } from '../support/products.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { difference, shapeOf, snapshot, StatementFault, type FaultKind, type Snapshot } from '../support/statement-fault.js';

let stack: TestStack;
let db: PosDb;
let pos: PosRuntime;
let printer: VirtualPrinter;
let printerId: string;
const posLink = () => stack.posLinks.get(BRANCH)!;
const fault = new StatementFault(
  () => posLink().sever(),
  () => {
    posLink().setDown(true);
    posLink().sever();
  },
);
/**
 * How far the agent's clock is ahead of this one's. A shift opens at a second no shift of its
 * company has opened nor its station closed in, waiting for it: the shift cases move the clock
 * on instead, two seconds a run.
 */
let ahead = 0;
/** PostgreSQL's simple-query message for `commit`, as the driver sends it. */
const COMMIT = Buffer.from('commit\u0000');
const agentNow = () => Date.now() + ahead;

beforeAll(async () => {
  // The event detector would consume the writes' origin marks between two snapshots.
  stack = await startTestStack({ agent: { events: { pollIntervalMs: 3_600_000 }, wallClock: agentNow }, posLinks: true });
  db = stack.pos.get(BRANCH)!.db;
  const agent = stack.agents.get(BRANCH)!;
  pos = agent.pos;
  // Only the job runner's statements go through the fault, not the event pump's nor the scheduler's.
  const opts = (agent.runner as unknown as { opts: RunnerOptions }).opts;
  opts.pos = { ...pos, db: pos.db.withPlugin(fault) };
  printer = await startVirtualPrinter({ host: LOOPBACK });
  const registered = await stack.api('POST', '/print/printers', {
    body: { licenseKey: BRANCH, printerIp: LOOPBACK, printerPort: printer.port, displayName: 'Caja', kind: 'thermal', widthMm: 80 },
  });
  expect(registered.status, registered.text).toBe(201);
  printerId = registered.body.id;
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await printer?.close();
});

/** Once the agent has finished every job (a replay's, held and rolled back; a print's records) and the printer every print. */
async function snap(): Promise<Snapshot> {
  await stack.agents.get(BRANCH)!.runner.drained();
  await printer.idle();
  return snapshot(db, pos);
}

/** Two lines, numbered 1 and 2. */
const two = [tacos, { ...refresco, movimiento: 2 }];
const base = orderBody({ serie: 'A', noPersonas: 2, mesa: '', idMesero: '01' });

function send(method: string, path: string, body: unknown, key: string): Promise<ApiResponse> {
  return stack.api(method, path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': key } });
}

async function ok(res: ApiResponse | Promise<ApiResponse>): Promise<ApiResponse> {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r;
}

const post = (path: string, body: unknown) => ok(send('POST', path, body, randomUUID()));
const openOrder = async (productos: unknown[]) => (await post('/temp_ordenes/{lk}', { ...base, productos })).body.folio as number;
const printed = async (productos: unknown[]) => {
  const folio = await openOrder(productos);
  await post(`/temp_ordenes/{lk}/${folio}/imprimir`, {});
  return folio;
};
const totalOf = async (folio: number) =>
  Number((await db.selectFrom('tempcheques').select('total').where('folio', '=', folio).executeTakeFirstOrThrow()).total);

/** The open shift of CAJA2, with a paid account in it, for a close to archive. */
async function shiftToClose(): Promise<number> {
  ahead += 2000;
  const open = await db.selectFrom('turnos').select('idturno').where('idestacion', '=', 'CAJA2').where('cierre', 'is', null).executeTakeFirst();
  const idTurno = open
    ? Number(open.idturno)
    : (await post('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: '0000000001', cajero: 'CAJERO', fondo: 100 })).body.idTurno;
  await post('/ordenes/{lk}', { ...base, estacion: 'CAJA2', idFormaDePago: 'EFE', productos: two });
  return idTurno as number;
}

/** No open shift at CAJA2, as a terminal's close would leave it. */
async function noShiftAtCaja2(): Promise<void> {
  ahead += 2000;
  await db
    .updateTable('turnos')
    .set({ cierre: new Date(agentNow() - 1000) })
    .where('idestacion', '=', 'CAJA2')
    .where('cierre', 'is', null)
    .execute();
}

interface Case {
  name: string;
  op: string;
  /** Sends one job to the test's printer once committed. */
  prints?: boolean;
  /** Sets up what the write needs and returns its request. */
  request: (k: number) => Promise<[method: string, path: string, body: unknown]>;
}

let price = 90;
const cases: Case[] = [
  { name: 'create order', op: 'orders.create', request: async () => ['POST', '/temp_ordenes/{lk}', { ...base, productos: [tacos, sinCebolla, refresco] }] },
  {
    name: 'create closed order',
    op: 'orders.createClosed',
    request: async () => ['POST', '/ordenes/{lk}', { ...base, idFormaDePago: 'EFE', productos: [tacos, sinCebolla, refresco] }],
  },
  {
    name: 'add lines',
    op: 'orders.addLines',
    request: async () => ['POST', `/temp_ordenes/{lk}/${await openOrder([tacos])}/productos`, { productos: [{ ...refresco, movimiento: 1 }] }],
  },
  {
    name: 'cancel lines (renumbering)',
    op: 'orders.cancelLines',
    request: async () => [
      'POST',
      `/temp_ordenes/{lk}/${await openOrder([tacos, sinCebolla, refresco])}/cancelar_productos`,
      { productos: [{ movimiento: 1, idProducto: '3001' }], razon: 'prueba' },
    ],
  },
  {
    name: 'general discount',
    op: 'orders.discount',
    request: async () => ['POST', `/temp_ordenes/{lk}/${await openOrder(two)}/descuento`, { modo: 'porcentaje', valor: 10 }],
  },
  {
    name: 'line discount',
    op: 'orders.lineDiscount',
    request: async () => [
      'POST',
      `/temp_ordenes/{lk}/${await openOrder(two)}/descuento_productos`,
      { productos: [{ movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 10 }] },
    ],
  },
  { name: 'print account', op: 'orders.print', request: async () => ['POST', `/temp_ordenes/{lk}/${await openOrder(two)}/imprimir`, {}] },
  {
    name: 'print account with its ticket',
    op: 'orders.print',
    prints: true,
    request: async () => ['POST', `/temp_ordenes/{lk}/${await openOrder(two)}/imprimir`, { printerId }],
  },
  {
    name: 'print a kitchen order',
    op: 'print.order',
    prints: true,
    request: async () => ['POST', '/print/{lk}/orden', printOrder([{ printerId, titulo: 'COCINA', productos: COFFEE_LINES }])],
  },
  {
    name: 'pay account',
    op: 'orders.pay',
    request: async () => {
      const folio = await printed(two);
      return ['POST', `/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: await totalOf(folio) }] }];
    },
  },
  { name: 'reopen account', op: 'orders.reopen', request: async () => ['POST', `/temp_ordenes/{lk}/${await printed(two)}/reabrir`, {}] },
  { name: 'cancel account', op: 'orders.cancel', request: async () => ['POST', `/temp_ordenes/{lk}/${await printed(two)}/cancelar`, { razon: 'prueba' }] },
  {
    name: 'open shift',
    op: 'shifts.open',
    request: async () => {
      await noShiftAtCaja2();
      return ['POST', '/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: '0000000001', cajero: 'CAJERO', fondo: 250 }];
    },
  },
  {
    name: 'close shift with a declaration',
    op: 'shifts.close',
    request: async () => [
      'POST',
      '/turnos_cierre/{lk}',
      {
        idTurno: await shiftToClose(),
        estacion: 'CAJA2',
        idEmpresa: '0000000001',
        declaracion: [
          { idFormaDePago: 'EFE', importe: 200 },
          { idFormaDePago: 'TAR', importe: 50 },
        ],
      },
    ],
  },
  { name: 'product update', op: 'products.update', request: async () => ['PUT', '/productos/{lk}/3001', { ...tacosProduct, precio: price++ }] },
];

/** The parts of an answer that differ between two runs of the same write: ids, numbers, times. */
const shapeOfBody = (body: unknown) => JSON.stringify(body, (_k, v: unknown) => (typeof v === 'number' || typeof v === 'string' ? typeof v : v));

function expectCleanProblem(res: ApiResponse, what: string): void {
  expect(res.headers.get('content-type'), what).toMatch(/application\/problem\+json/);
  expect([500, 503], `${what}: ${JSON.stringify(res.body)}`).toContain(res.status);
  if (res.status === 500) expect(res.body.code, what).toBe('internal_error');
  expect(res.text, what).not.toMatch(/fault injected|XX000|\bat .*\.(ts|js):\d+|select |insert |update /i);
}

describe.each(cases)('$name failing after each statement', (c) => {
  let statements = 0;
  let cleanShape: string[] = [];
  let cleanBody = '';

  beforeAll(async () => {
    // Twice: the second is the steady state every later run meets (a first close or update of the
    // seed's rows touches more than later ones do).
    for (let run = 0; run < 2; run++) {
      const [method, path, body] = await c.request(0);
      const before = await snap();
      fault.arm(0);
      const res = await ok(send(method, path, body, randomUUID()));
      // The transaction ends with the key's record; what runs after it is after the commit.
      statements = fault.seen.findIndex((node) => JSON.stringify(node).includes('ba_idempotency')) + 1;
      cleanShape = shapeOf(difference(before, await snap()));
      cleanBody = shapeOfBody({ ...res.body, jobId: undefined });
    }
  }, 30_000);

  it('has statements to fail', () => {
    expect(statements, `${c.op} statements`).toBeGreaterThan(1);
  });

  const sweep =
    (kind: FaultKind, at: (n: number) => number[] = (n) => Array.from({ length: n }, (_, i) => i + 1)) =>
    async () => {
      for (const k of at(statements)) {
        const what = `${c.op}, ${kind} after statement ${k} of ${statements}`;
        const [method, path, body] = await c.request(k);
        const key = randomUUID();
        const before: Snapshot = await snap();
        const printedBefore = printer.jobs.length;
        fault.arm(k, kind);
        const failed = await send(method, path, body, key);
        expect(fault.fired, what).toBe(true);
        let retried: ApiResponse;
        if (kind !== 'cut' && kind !== 'deadlock' && kind !== 'duplicate') {
          if (kind === 'down') {
            expect(failed.status, what).toBe(503);
            expect(failed.body.code, what).toBe('pos_unavailable');
            expect(failed.headers.get('retry-after'), what).toBe('5');
            posLink().setDown(false);
          }
          if (kind === 'lockTimeout') expect([failed.status, failed.body.code], what).toEqual([503, 'pos_busy']);
          expectCleanProblem(failed, what);
          expect(difference(before, await snap()), what).toEqual({});
          expect(printer.jobs.length, what).toBe(printedBefore);
          fault.arm(0);
          retried = await send(method, path, body, key);
        } else {
          // Rolled back whole and run once more by the agent: the client sees one clean write.
          expect(fault.seen.length, what).toBeGreaterThan(statements);
          retried = failed;
        }
        expect(retried.status, `${what}: ${JSON.stringify(retried.body)}`).toBeLessThan(300);
        expect(retried.headers.get('idempotent-replayed'), what).toBeNull();
        expect(shapeOfBody({ ...retried.body, jobId: undefined }), what).toBe(cleanBody);
        const after = await snap();
        expect(shapeOf(difference(before, after)), what).toEqual(cleanShape);
        // Once: a replay of the key writes and prints nothing more.
        const replay = await send(method, path, body, key);
        expect(replay.headers.get('idempotent-replayed'), what).toBe('true');
        expect(difference(after, await snap()), what).toEqual({});
        expect(printer.jobs.length, what).toBe(printedBefore + (c.prints ? 1 : 0));
      }
    };
  it('an error after statement k changes nothing and the retry applies it once', sweep('error'), 120_000);
  // Every other statement, and the last: the agent's rerun is the same wherever the cut falls.
  const oddAndLast = (n: number) => [...new Set([...Array.from({ length: Math.ceil(n / 2) }, (_, i) => 2 * i + 1), n])];
  it('the database link cut after statement k (odd k, and the last): run again once, as a clean write', sweep('cut', oddAndLast), 120_000);
  const firstMiddleLast = (n: number) => [...new Set([1, Math.ceil(n / 2), n])];
  it('the database gone after statement k (first, middle, last): 503, nothing written, the retry applies it once', sweep('down', firstMiddleLast), 60_000);
  const middle = (n: number) => [Math.ceil(n / 2)];
  it('a lock timeout midway: 503 pos_busy, nothing written, the retry applies it once', sweep('lockTimeout', middle), 60_000);
  it('a deadlock or a duplicate key midway: run again once, as a clean write', async () => {
    await sweep('deadlock', middle)();
    await sweep('duplicate', middle)();
  }, 60_000);

  it('its COMMIT confirmed to nobody, the database then gone: 503, and the retry answers it without writing', async () => {
    const [method, path, body] = await c.request(-1);
    const key = randomUUID();
    const before = await snap();
    const printedBefore = printer.jobs.length;
    fault.arm(0);
    posLink().cutAfter(COMMIT, () => {
      posLink().setDown(true);
      posLink().sever();
    });
    const failed = await send(method, path, body, key);
    posLink().setDown(false);
    expect(posLink().cutPending()).toBe(false);
    expect(failed.status, JSON.stringify(failed.body)).toBe(503);
    expect(failed.body.code).toBe('pos_unavailable');
    expectCleanProblem(failed, c.op);
    // Committed, though the agent could not learn it: the retry must find it and not write again.
    const after = await snap();
    expect(shapeOf(difference(before, after))).toEqual(cleanShape);
    const retry = await send(method, path, body, key);
    if (c.prints) {
      // Nothing was sent, but the record kept says what it says of a print cut short (docs/api.md).
      expect(retry.status, JSON.stringify(retry.body)).toBe(502);
      expect(retry.body.code).toBe('printer_failed');
      expect(JSON.stringify(retry.body)).toContain('interrupted');
    } else {
      expect(retry.status, JSON.stringify(retry.body)).toBeLessThan(300);
      expect(shapeOfBody({ ...retry.body, jobId: undefined })).toBe(cleanBody);
    }
    expect(difference(after, await snap())).toEqual({});
    expect(printer.jobs.length).toBe(printedBefore);
  });

  it('its COMMIT reaching the database and its confirmation lost: answered as committed, once', async () => {
    const [method, path, body] = await c.request(-1);
    const key = randomUUID();
    const before = await snap();
    const printedBefore = printer.jobs.length;
    fault.arm(0);
    const link = stack.posLinks.get(BRANCH)!;
    link.cutAfter(COMMIT);
    const res = await send(method, path, body, key);
    expect(link.cutPending()).toBe(false);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    expect(shapeOfBody({ ...res.body, jobId: undefined })).toBe(cleanBody);
    const after = await snap();
    expect(shapeOf(difference(before, after))).toEqual(cleanShape);
    const replay = await send(method, path, body, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(difference(after, await snap())).toEqual({});
    expect(printer.jobs.length).toBe(printedBefore + (c.prints ? 1 : 0));
  });
});
