/**
 * search-10k: p50 of POST /ordenes/buscar with 10,000 shift ids, as a ratio to the same search
 * with 10 ids, both through the whole path. Target: at most 4.
 */
import type { BenchContext } from './run.js';
import { requestOk } from './http-client.js';
import { compare } from './measure.js';

export async function searchBench({ stack, licenseKey, apiKey }: BenchContext): Promise<string[]> {
  const search = (count: number) => async () => {
    await requestOk(`${stack.url}/ordenes/buscar/${licenseKey}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey },
      body: { idTurnos: Array.from({ length: count }, (_, i) => i + 1), pageSize: 50 },
    });
  };
  const { a: big, b: small } = await compare(search(10_000), search(10), 60, 10);
  return [
    `search-10k: ratio to a 10-id search ${(big / small).toFixed(2)}  (10,000 shift ids p50 ${big.toFixed(1)} ms, 10 ids p50 ${small.toFixed(1)} ms; target ≤ 4)`,
  ];
}
