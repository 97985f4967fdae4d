/**
 * The handheld devices' copy of open accounts (`cuentas`, `detallescuentas`, order-lifecycle rows
 * 94-96, 209-220, 551-552) when accounts of other services name a table: SR keys the lines by
 * table, so only the account that holds the table (dine-in) may write or delete them.
 */
import { describe, expect, it } from 'vitest';
import { loosely } from '../../src/pos/schema.js';
import { accountSuite } from '../support/accounts.js';
import { BRANCH } from '../support/stack.js';

const { db, stack, write, openOrder } = accountSuite();

async function registerDevice(): Promise<void> {
  const schema = stack().agents.get(BRANCH)!.pos.schema;
  const device = { id_dispositivo: 'tablet-1', nombre_dispositivo: 'Tableta mesero', fecha: new Date(), ultima_actualizacion: new Date() };
  await loosely(db()).insertInto('registro_dispositivos').values(schema.completeRow('registro_dispositivos', device)).execute();
}

const tableLines = async (mesa: string) =>
  (await db().selectFrom('detallescuentas').select(['clave', 'movimiento']).where('clavemesa', '=', mesa).orderBy('movimiento').execute()).map((d) => [
    d.clave,
    Number(d.movimiento),
  ]);

describe("an account of another service at a dine-in account's table", () => {
  it("neither mixes its lines with the dine-in account's on the devices nor renumbers or deletes them", async () => {
    await registerDevice();
    const dineIn = await openOrder([{ movimiento: 1, idProducto: '3001', cantidad: 1 }], { mesa: 'T2', tipoDeServicio: 1 });
    const delivery = await openOrder([{ movimiento: 1, idProducto: '1005', cantidad: 1 }], { mesa: 'T2', tipoDeServicio: 2 });
    expect(await tableLines('T2')).toEqual([['3001', 1]]);
    expect(await db().selectFrom('cuentas').select('foliocuenta').where('foliocuenta', '=', delivery).execute()).toEqual([]);

    const cancelled = await write(`/temp_ordenes/{lk}/${delivery}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '1005' }] });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(await tableLines('T2')).toEqual([['3001', 1]]);

    expect((await write(`/temp_ordenes/{lk}/${delivery}/productos`, { productos: [{ movimiento: 1, idProducto: '1101', cantidad: 1 }] })).status).toBe(200);
    const paid = await write(`/temp_ordenes/{lk}/${delivery}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: 55 }] });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(await tableLines('T2')).toEqual([['3001', 1]]);
    expect(await db().selectFrom('cuentas').select('foliocuenta').where('foliocuenta', '=', dineIn).execute()).toHaveLength(1);

    const other = await openOrder([{ movimiento: 1, idProducto: '1001', cantidad: 1 }], { mesa: 'T2', tipoDeServicio: 2 });
    expect((await write(`/temp_ordenes/{lk}/${other}/cancelar`, { razon: 'x' })).status).toBe(200);
    expect(await tableLines('T2')).toEqual([['3001', 1]]);
  });
});
