/**
 * Ten requests at once with one Idempotency-Key: exactly one runs. Each of the others is told
 * the first is still running (409 with Retry-After) or, once it finished, gets its answer
 * replayed (Idempotent-Replayed, the original jobId). And the write lands once.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { startVirtualPrinter, type VirtualPrinter } from '../../src/printing/virtual-printer.js';
import { LOOPBACK } from '../support/printer-ports.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;
let printer: VirtualPrinter;
let printerId: string;
const company = '0000000001';

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  printer = await startVirtualPrinter({ host: LOOPBACK });
  const registered = await stack.api('POST', '/print/printers', {
    body: { licenseKey: BRANCH, printerIp: LOOPBACK, printerPort: printer.port, displayName: 'Cocina', kind: 'thermal', widthMm: 80 },
  });
  expect(registered.status, registered.text).toBe(201);
  printerId = registered.body.id;
  // Connections to the store open before the first race, so its requests do arrive together.
  await Promise.all(Array.from({ length: 10 }, () => stack.api('GET', '/print/printers')));
});
afterAll(async () => {
  await printer?.close();
  await stack?.stop();
});

/** Sends the same request ten times at once with one key, and checks what the draft prescribes. */
async function tenAtOnce(path: string, body: unknown): Promise<ApiResponse> {
  const key = randomUUID();
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': key } })),
  );
  const ran = answers.filter((a) => a.status < 300 && a.headers.get('idempotent-replayed') === null);
  expect(ran, answers.map((a) => `${a.status} ${a.text}`).join('\n')).toHaveLength(1);
  const original = ran[0]!;
  expect(original.body.jobId).toEqual(expect.any(String));
  for (const other of answers.filter((a) => a !== original)) {
    if (other.status === 409) {
      expect(other.body.code).toBe('idempotency_in_progress');
      expect(Number(other.headers.get('retry-after'))).toBeGreaterThan(0);
    } else {
      expect(other.headers.get('idempotent-replayed'), other.text).toBe('true');
      expect(other.status).toBe(original.status);
      expect(other.body).toEqual(original.body);
    }
  }
  // Once it finished, the key only ever replays.
  const later = await stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': key } });
  expect(later.headers.get('idempotent-replayed')).toBe('true');
  expect(later.body.jobId).toBe(original.body.jobId);
  return original;
}

it('a closed order', async () => {
  const mesa = `Q${randomUUID().slice(0, 6)}`;
  await tenAtOnce(
    '/ordenes/{lk}',
    orderBody({
      serie: 'A',
      idFormaDePago: 'EFE',
      mesa,
      productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }],
    }),
  );
  expect(await db.selectFrom('tempcheques').select('folio').where('mesa', '=', mesa).execute()).toHaveLength(1);
});

it('an open shift', async () => {
  const original = await tenAtOnce('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: company, cajero: 'CAJERO', fondo: 250 });
  expect(original.status).toBe(200);
  expect(await db.selectFrom('turnos').select('idturno').where('idestacion', '=', 'CAJA2').where('cierre', 'is', null).execute()).toEqual([
    { idturno: original.body.idTurno },
  ]);
});

it('cancelling lines', async () => {
  const line = (movimiento: number, idProducto: string) => ({ movimiento, idProducto, cantidad: 1 });
  const created = await stack.api('POST', `/temp_ordenes/${BRANCH}`, {
    body: orderBody({ serie: 'A', idMesero: '01', mesa: 'C1', productos: [line(1, '3001'), line(2, '1005'), line(3, '1001')] }),
    headers: { 'idempotency-key': randomUUID() },
  });
  expect(created.status, created.text).toBe(201);
  const original = await tenAtOnce(`/temp_ordenes/{lk}/${created.body.folio}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '3001' }] });
  expect(original.body.itemsCancelados).toBe(1);
  const left = await db
    .selectFrom('tempcheqdet')
    .select(['movimiento', 'idproducto'])
    .where('foliodet', '=', created.body.folio)
    .orderBy('movimiento')
    .execute();
  expect(left.map((r) => [Number(r.movimiento), r.idproducto])).toEqual([
    [1, '1005'],
    [2, '1001'],
  ]);
});

it('a test print', async () => {
  const before = printer.jobs.length;
  await tenAtOnce('/print/{lk}/prueba', { printerId, printerName: 'Cocina' });
  await sleep(300);
  expect(printer.jobs.length - before).toBe(1);
});
