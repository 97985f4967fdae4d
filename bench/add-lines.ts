/**
 * add-lines ratio: p50 of POST /temp_ordenes/{lk}/{folio}/productos through the whole path
 * (with its Idempotency-Key) divided by p50 of the addLines operation run directly in a
 * transaction on the same database. Accounts are replaced every 100 additions so both sides
 * work on accounts of the same size. Target: at most 1.3.
 */
import { randomUUID } from 'node:crypto';
import { addLines, createOrder } from '../src/pos/operations/orders.js';
import type { BenchContext } from './run.js';
import { BENCH_ACCOUNT, directTransaction } from './direct-pos.js';
import { requestOk } from './http-client.js';
import { compare } from './measure.js';

export async function addLinesBench({ stack, licenseKey, apiKey, pos }: BenchContext): Promise<string[]> {
  const inTransaction = directTransaction(pos);
  const header = BENCH_ACCOUNT;
  const newAccount = async () => (await inTransaction((ctx) => createOrder.run(ctx, header))).folio;
  const body = {
    productos: [
      { movimiento: 1, idProducto: '3001', cantidad: 1 },
      { movimiento: 2, idProducto: '9001', cantidad: 1, modificador: true },
    ],
  };
  const input = (folio: number) => addLines.def.input.parse({ folio, ...body });

  let apiFolio = await newAccount();
  let directFolio = await newAccount();
  let calls = 0;
  const viaApi = async () => {
    await requestOk(`${stack.url}/temp_ordenes/${licenseKey}/${apiFolio}/productos`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'idempotency-key': randomUUID() },
      body,
    });
  };
  const direct = async () => {
    await inTransaction((ctx) => addLines.run(ctx, input(directFolio)));
    if (++calls % 100 === 0) [apiFolio, directFolio] = [await newAccount(), await newAccount()];
  };
  const { a: api, b: fn } = await compare(viaApi, direct, 300);
  return [`add-lines ratio: ${(api / fn).toFixed(2)}  (API p50 ${api.toFixed(2)} ms, direct p50 ${fn.toFixed(2)} ms; target ≤ 1.3)`];
}
