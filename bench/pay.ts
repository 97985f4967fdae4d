/**
 * pay ratio: p50 of POST /temp_ordenes/{lk}/{folio}/pagar through the whole path (with its
 * Idempotency-Key) divided by p50 of the same payment operation run directly in a transaction on
 * the same database. Each payment settles an account of its own, opened beforehand and not
 * timed: an unprinted account of two lines, paid with dollars and pesos with change and a card
 * tip, so the print, the tenders and the buckets all run. Target: at most 1.5.
 */
import { randomUUID } from 'node:crypto';
import { payAccount } from '../src/pos/operations/pay-account.js';
import { createOrder } from '../src/pos/operations/orders.js';
import type { BenchContext } from './run.js';
import { BENCH_ACCOUNT, directTransaction } from './direct-pos.js';
import { requestOk } from './http-client.js';
import { compare } from './measure.js';

const ITERATIONS = 300;
const WARMUP = 30;

export async function payBench({ stack, licenseKey, apiKey, pos }: BenchContext): Promise<string[]> {
  const inTransaction = directTransaction(pos);
  const header = BENCH_ACCOUNT;
  const productos = [
    { movimiento: 1, idProducto: '3001', cantidad: 2, modificador: false },
    { movimiento: 2, idProducto: '1005', cantidad: 1, modificador: false },
  ];
  const accounts = async (n: number) => {
    const folios: number[] = [];
    for (let i = 0; i < n; i++) folios.push((await inTransaction((ctx) => createOrder.run(ctx, { ...header, productos }))).folio);
    return folios;
  };
  const apiFolios = await accounts(ITERATIONS + WARMUP);
  const directFolios = await accounts(ITERATIONS + WARMUP);
  // 207.90: 5 dollars (86.25), 100 pesos, and 30 on a card with a 5 tip; 8.35 change.
  const body = {
    pagos: [
      { idFormaDePago: 'USD', importe: 5 },
      { idFormaDePago: 'EFE', importe: 100 },
      { idFormaDePago: 'TAR', importe: 30, propina: 5 },
    ],
  };
  const viaApi = async () => {
    await requestOk(`${stack.url}/temp_ordenes/${licenseKey}/${apiFolios.pop()!}/pagar`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'idempotency-key': randomUUID() },
      body,
    });
  };
  const direct = () => inTransaction((ctx) => payAccount.run(ctx, payAccount.def.input.parse({ folio: directFolios.pop()!, ...body })));
  const { a: api, b: fn } = await compare(viaApi, direct, ITERATIONS, WARMUP);
  return [`pay ratio: ${(api / fn).toFixed(2)}  (API p50 ${api.toFixed(2)} ms, direct p50 ${fn.toFixed(2)} ms; target ≤ 1.5)`];
}
