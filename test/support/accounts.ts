/**
 * What the account-writing end-to-end tests share: a stack with its branches' databases, a write with a fresh Idempotency-Key, an open order, the rows an
 * account leaves, the row counts a refused write must leave unchanged, and the products they
 * order.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { orderBody } from './order-body.js';
import { BRANCH, startTestStack, STRICT_BRANCH, type ApiResponse, type TestStack } from './stack.js';

export const base = orderBody({ serie: 'A', noPersonas: 2 });

export const tacos = { movimiento: 1, idProducto: '3001', cantidad: 2 };
export const sinCebolla = { movimiento: 2, idProducto: '9001', cantidad: 1, modificador: true };
export const refresco = { movimiento: 3, idProducto: '1005', cantidad: 3 };

/**
 * A test file's stack, started before its tests and stopped after them, with the helpers bound
 * to it; a database defaults to the branch's.
 */
export function accountSuite() {
  let started: TestStack | undefined;
  beforeAll(async () => {
    started = await startTestStack();
  });
  afterAll(async () => {
    await started?.stop();
  });
  const stack = (): TestStack => started!;
  const branchDb = (): PosDb => stack().pos.get(BRANCH)!.db;

  function write(path: string, body: unknown, opts: { key?: string; branch?: string } = {}): Promise<ApiResponse> {
    return stack().api('POST', path.replace('{lk}', opts.branch ?? BRANCH), { body, headers: { 'idempotency-key': opts.key ?? randomUUID() } });
  }

  async function openOrder(productos?: unknown[], extra: Record<string, unknown> = {}, branch = BRANCH): Promise<number> {
    const res = await write('/temp_ordenes/{lk}', { ...base, mesa: '', idMesero: '01', ...extra, ...(productos ? { productos } : {}) }, { branch });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.folio;
  }

  async function header(folio: number, on = branchDb()) {
    return on.selectFrom('tempcheques').selectAll().where('folio', '=', folio).executeTakeFirstOrThrow();
  }

  async function lines(folio: number, on = branchDb()) {
    return on.selectFrom('tempcheqdet').selectAll().where('foliodet', '=', folio).orderBy('movimiento').execute();
  }

  async function counts(on = branchDb()) {
    const count = async (table: 'tempcheques' | 'tempcheqdet' | 'tempcancela' | 'productosenproduccion' | 'bitacorasistema' | 'tempchequespagos') =>
      Number(
        (
          await on
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const folios = await on.selectFrom('folios').select(['serie', 'ultimofolio', 'ultimaorden']).orderBy('serie').execute();
    return {
      tempcheques: await count('tempcheques'),
      tempcheqdet: await count('tempcheqdet'),
      tempcancela: await count('tempcancela'),
      productosenproduccion: await count('productosenproduccion'),
      bitacorasistema: await count('bitacorasistema'),
      tempchequespagos: await count('tempchequespagos'),
      folios: folios.map((f) => `${f.serie}:${f.ultimofolio}:${f.ultimaorden}`).join(','),
    };
  }

  return { stack, db: branchDb, strictDb: (): PosDb => stack().pos.get(STRICT_BRANCH)!.db, write, openOrder, header, lines, counts };
}
