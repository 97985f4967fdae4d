/**
 * roundtrip ratio: p50 of GET /productos?pageSize=50 through HTTP → gateway → WebSocket → agent
 * → PostgreSQL, divided by p50 of the same operation function called directly on the same
 * database. Target: at most 1.3.
 */
import pino from 'pino';
import { listProducts } from '../src/pos/operations/catalogs.js';
import type { BenchContext } from './run.js';
import { request } from './http-client.js';
import { compare } from './measure.js';

export async function roundtrip({ stack, licenseKey, apiKey, pos }: BenchContext): Promise<string[]> {
  const ctx = { db: pos.db, dialect: pos.dialect, schema: pos.schema, log: pino({ level: 'silent' }), now: new Date() };
  const input = listProducts.def.input.parse({ pageSize: 50 });
  const url = `${stack.url}/productos/${licenseKey}?pageSize=50`;
  const viaApi = async () => {
    const res = await request(url, { headers: { 'x-api-key': apiKey } });
    if (res.status !== 200) throw new Error(`API answered ${res.status}`);
    JSON.parse(res.body);
  };
  const direct = () => listProducts.run(ctx, input);
  const { a: api, b: fn } = await compare(viaApi, direct, 400);
  return [`roundtrip ratio: ${(api / fn).toFixed(2)}  (API p50 ${api.toFixed(2)} ms, direct p50 ${fn.toFixed(2)} ms; target ≤ 1.3)`];
}
