/** Accounts written in bulk for the benchmarks that need many: headers with their totals, and lines. */
import type { PosRuntime } from '../src/pos/runtime.js';
import { computeTotals, totalsToHeaderColumns } from '../src/pos/totals.js';

const PRODUCTS = ['3001', '3002', '1005', '4001', '2001'];

/** `count` lines of the demo's products at 89.00 with IVA 16 %, and the header totals they make. */
export function benchLines(count: number) {
  const lines = Array.from({ length: count }, (_, i) => ({
    cantidad: 1,
    precio: '89.00',
    impuesto1: 16,
    impuesto2: 0,
    impuesto3: 0,
    descuento: 0,
    clasificacion: 2 as const,
    idproducto: PRODUCTS[i % PRODUCTS.length]!,
  }));
  return { lines, header: totalsToHeaderColumns(computeTotals(lines, 0)) };
}

/** Inserts the headers (completed as SR leaves them), then every header's lines; returns the folios. */
export async function insertAccounts(
  pos: PosRuntime,
  headers: Array<Record<string, unknown>>,
  lines: ReturnType<typeof benchLines>['lines'],
): Promise<Array<{ folio: number }>> {
  const folios = await pos.db
    .insertInto('tempcheques')
    .values(headers.map((h) => pos.schema.completeRow('tempcheques', h)))
    .returning('folio')
    .execute();
  await pos.db
    .insertInto('tempcheqdet')
    .values(
      folios.flatMap(({ folio }) =>
        lines.map((l, m) =>
          pos.schema.completeRow('tempcheqdet', {
            foliodet: folio,
            movimiento: m + 1,
            idproducto: l.idproducto,
            cantidad: 1,
            precio: l.precio,
            impuesto1: 16,
            impuesto2: 0,
            impuesto3: 0,
            descuento: 0,
          }),
        ),
      ),
    )
    .execute();
  return folios.map((f) => ({ folio: Number(f.folio) }));
}
