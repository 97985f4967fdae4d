/**
 * event latency: p50 of the time from a change written straight into the POS database (as a
 * terminal writes it) to its webhook arriving at a receiver, as a ratio to the agent's poll
 * interval. Target: at most 1.5.
 *
 * poll cost: p50 of one detection poll that finds nothing on a branch with 200 open accounts
 * of 10 lines, as a ratio to reading a 50-product catalogue page on the same database. Target:
 * at most 1.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { ChangeDetector } from '../src/pos/events/detector.js';
import { listProducts } from '../src/pos/operations/catalogs.js';
import { openPos } from '../src/pos/runtime.js';
import { benchLines, insertAccounts } from './accounts.js';
import type { BenchContext } from './run.js';
import { requestOk } from './http-client.js';
import { compare, median } from './measure.js';
import { until } from '../test/support/until.js';
import { posDatabase } from '../src/config/schema.js';

export const BENCH_POLL_INTERVAL_MS = 1_000;
const SAMPLES = 20;

export async function eventLatencyBench({ stack, licenseKey, apiKey, pos }: BenchContext): Promise<string[]> {
  const arrivals = new Map<number, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { productos?: Array<{ cantidad: number }> } };
      const cantidad = event.data?.productos?.[0]?.cantidad;
      if (cantidad !== undefined && !arrivals.has(cantidad)) arrivals.set(cantidad, performance.now());
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    await requestOk(
      `${stack.url}/webhooks`,
      { method: 'POST', headers: { 'x-api-key': apiKey }, body: { url, eventos: ['orden.actualizada'], licenseKeys: [licenseKey] } },
      201,
    );
    const opened = await requestOk(
      `${stack.url}/temp_ordenes/${licenseKey}`,
      {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'idempotency-key': `bench-${Date.now()}` },
        body: {
          estacion: 'CAJA1',
          serie: 'A',
          idEmpresa: '0000000001',
          noPersonas: 2,
          mesa: '',
          productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }],
        },
      },
      201,
    );
    const folio = (JSON.parse(opened) as { folio: number }).folio;
    // Let the account's own event pass first.
    await sleep(BENCH_POLL_INTERVAL_MS * 3);

    const latencies: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const cantidad = 100 + i;
      // A terminal changes things at any moment of the poll's cycle.
      await sleep(Math.random() * BENCH_POLL_INTERVAL_MS);
      await pos.db.updateTable('tempcheqdet').set({ cantidad }).where('foliodet', '=', folio).execute();
      const changedAt = performance.now();
      await until(() => arrivals.has(cantidad), 15_000, 5).catch(() => {
        throw new Error(`no webhook for change ${i}`);
      });
      latencies.push(arrivals.get(cantidad)! - changedAt);
    }
    const p50 = median(latencies);
    return [
      `event latency: ${(p50 / BENCH_POLL_INTERVAL_MS).toFixed(2)} × the poll interval  (p50 ${p50.toFixed(0)} ms over ${SAMPLES} changes, poll every ${BENCH_POLL_INTERVAL_MS} ms; target ≤ 1.5)`,
    ];
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const ACCOUNTS = 200;
const LINES = 10;

export async function pollCostBench({ cluster, posUrl }: BenchContext): Promise<string[]> {
  const log = pino({ level: 'silent' });
  await cluster.admin(`CREATE DATABASE pos_poll TEMPLATE ${new URL(posUrl).pathname.slice(1)}`);
  const pos = await openPos(posDatabase({ dialect: 'postgres', url: cluster.url('pos_poll') }), log);
  try {
    await fillOpenAccounts(pos);
    const ctx = { db: pos.db, dialect: pos.dialect, schema: pos.schema, log };
    const detector = new ChangeDetector(ctx, 'BENCH00000000009');
    await detector.poll();
    const input = listProducts.def.input.parse({ pageSize: 50 });
    const { a: poll, b: read } = await compare(
      async () => {
        if ((await detector.poll()) !== 0) throw new Error('the poll found a change where none was made');
      },
      () => listProducts.run({ ...ctx, now: new Date() }, input),
      200,
    );
    return [
      `poll cost: ${(poll / read).toFixed(2)} × a 50-product catalogue read  (poll p50 ${poll.toFixed(2)} ms on ${ACCOUNTS} open accounts × ${LINES} lines, read p50 ${read.toFixed(2)} ms; target ≤ 1)`,
    ];
  } finally {
    await pos.close();
  }
}

/** 200 open accounts of 10 lines each, written with bulk statements. */
async function fillOpenAccounts(pos: Awaited<ReturnType<typeof openPos>>): Promise<void> {
  const { lines, header } = benchLines(LINES);
  const headers = Array.from({ length: ACCOUNTS }, (_, i) => ({
    ...header,
    seriefolio: 'A',
    numcheque: 0,
    orden: i + 1,
    mesa: String(i + 1),
    fecha: new Date(),
    pagado: false,
    cancelado: false,
    impreso: false,
    idturno: 2,
    estacion: 'CAJA1',
    idempresa: '0000000001',
    usuarioapertura: 'CAJERO',
  }));
  await insertAccounts(pos, headers, lines);
}
