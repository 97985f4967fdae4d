/**
 * A branch-sized catalogue for the benchmarks: 1,500 products with their company prices, so a
 * page of 50 is a full page read from a realistic table, not all of a 35-product demo menu.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { openPos } from '../src/pos/runtime.js';
import { precioSinImpuestos } from '../src/pos/totals.js';
import { posDatabase } from '../src/config/schema.js';

export async function addCatalogue(url: string, count = 1500): Promise<void> {
  const pos = await openPos(posDatabase({ dialect: 'postgres', url }), pino({ level: 'silent' }));
  const groups = ['BEB', 'BAR', 'ENT', 'PLA', 'POS', 'OTR'];
  for (let start = 0; start < count; start += 500) {
    const ids = Array.from({ length: Math.min(500, count - start) }, (_, i) => `B${String(start + i).padStart(5, '0')}`);
    await pos.db
      .insertInto('productos')
      .values(
        ids.map((id, i) =>
          pos.schema.completeRow('productos', {
            idproducto: id,
            descripcion: `Platillo de prueba ${id}`,
            nombrecorto: id,
            idgrupo: groups[i % groups.length],
            visible_menu: true,
          }),
        ),
      )
      .execute();
    await pos.db
      .insertInto('productosdetalle')
      .values(
        ids.map((id, i) => {
          const precio = (50 + (i % 300) + 0.5).toFixed(2);
          return pos.schema.completeRow('productosdetalle', {
            idproducto: id,
            idempresa: '0000000001',
            precio,
            preciosinimpuestos: precioSinImpuestos(precio, 16, 0, 0).toFixed(4),
            impuesto1: 16,
            impuesto2: 0,
            impuesto3: 0,
            bloqueado: false,
            permitirprodcompenmodif: false,
          });
        }),
      )
      .execute();
  }
  // Statistics, as a branch database that has been up has them: autovacuum would gather them
  // minutes later, in the middle of a full run, and the plans (and every ratio) would change then.
  await sql`ANALYZE`.execute(pos.db);
  await pos.close();
}
