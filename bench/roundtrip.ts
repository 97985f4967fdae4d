/**
 * roundtrip ratio: p50 of GET /productos?pageSize=50 through HTTP → gateway → WebSocket → agent
 * → PostgreSQL, divided by p50 of the same operation function called directly on the same
 * database. Target: at most 1.3. Beside it, the same hops without the product's code
 * (bench/bare-relay.ts), interleaved with both: how much of the difference is this machine's.
 */
import pino from 'pino';
import { listProducts } from '../src/pos/operations/catalogs.js';
import type { BenchContext } from './run.js';
import { startBareRelay } from './bare-relay.js';
import { requestOk } from './http-client.js';
import { interleaved } from './measure.js';

async function getJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  return JSON.parse(await requestOk(url, { headers }));
}

export async function roundtrip({ stack, licenseKey, apiKey, pos, agentPosUrl }: BenchContext): Promise<string[]> {
  const ctx = { db: pos.db, dialect: pos.dialect, schema: pos.schema, log: pino({ level: 'silent' }), now: new Date() };
  const input = listProducts.def.input.parse({ pageSize: 50 });
  const url = `${stack.url}/productos/${licenseKey}?pageSize=50`;
  const relay = await startBareRelay(agentPosUrl);
  try {
    const [api, fn, bare] = await interleaved([() => getJson(url, { 'x-api-key': apiKey }), () => listProducts.run(ctx, input), () => getJson(relay.url)], 400);
    return [
      `roundtrip ratio: ${(api / fn).toFixed(2)}  (API p50 ${api.toFixed(2)} ms, direct p50 ${fn.toFixed(2)} ms; target ≤ 1.3)`,
      `roundtrip floor: the same hops without the product's code ${bare.toFixed(2)} ms (${(bare / fn).toFixed(2)} × direct); the product's own ${(api - bare).toFixed(2)} ms, API / floor ${(api / bare).toFixed(2)}`,
    ];
  } finally {
    await relay.stop();
  }
}
