/**
 * What the product-update end-to-end tests share: a PUT with a fresh Idempotency-Key, the bodies
 * they send, the rows the update writes and a snapshot of everything it may write.
 */
import { randomUUID } from 'node:crypto';
import { BRANCH, type ApiResponse, type TestStack } from './stack.js';

export const COMPANY = '0000000001';
/** A company of the branch that has no prices (productosdetalle) for any product. */
export const EMPTY_COMPANY = '0000000002';

/** Adds EMPTY_COMPANY to the branch. */
export async function addEmptyCompany(stack: TestStack): Promise<void> {
  const schema = stack.agents.get(BRANCH)!.pos.schema;
  await stack.pos
    .get(BRANCH)!
    .db.insertInto('empresas')
    .values(schema.completeRow('empresas', { idempresa: EMPTY_COMPANY, nombre: 'Sin menú' }))
    .execute();
}

/** Tacos al pastor (3001, PLA, 89.00 with IVA 16 %) as the full body, with a new price. */
export const tacos = {
  idEmpresa: COMPANY,
  descripcionProducto: 'Tacos al pastor con piña (3 pzas)',
  idGrupo: 'ENT',
  nombreCorto: 'Tacos piña',
  visibleMenu: false,
  precio: 95.5,
  impuesto1: 16,
  impuesto2: 0,
  impuesto3: 0,
  bloqueado: true,
  permitirprodcompenmodif: true,
};

/** The body that keeps a demo product as seeded, but for the price given. */
export function seeded(descripcion: string, nombreCorto: string, idGrupo: string, precio: number) {
  return {
    idEmpresa: COMPANY,
    descripcionProducto: descripcion,
    idGrupo,
    nombreCorto,
    visibleMenu: true,
    precio,
    impuesto1: 16,
    impuesto2: 0,
    impuesto3: 0,
    bloqueado: false,
    permitirprodcompenmodif: idGrupo === 'MOD',
  };
}

/** The row with the given columns left out. */
export function without<T extends object>(row: T, columns: readonly string[]): Partial<T> {
  return Object.fromEntries(Object.entries(row).filter(([k]) => !columns.includes(k))) as Partial<T>;
}

export const PRODUCT_COLUMNS = ['descripcion', 'idgrupo', 'nombrecorto', 'visible_menu'];
export const PRICE_COLUMNS = ['precio', 'preciosinimpuestos', 'impuesto1', 'impuesto2', 'impuesto3', 'bloqueado', 'permitirprodcompenmodif'];

/** The helpers bound to a test file's stack, reading the branch's database. */
export function productTools(stack: () => TestStack) {
  const db = () => stack().pos.get(BRANCH)!.db;

  function put(idProducto: string, body: unknown, opts: { key?: string; branch?: string } = {}): Promise<ApiResponse> {
    return stack().api('PUT', `/productos/${opts.branch ?? BRANCH}/${idProducto}`, { body, headers: { 'idempotency-key': opts.key ?? randomUUID() } });
  }

  async function productRow(id: string) {
    return db().selectFrom('productos').selectAll().where('idproducto', '=', id).executeTakeFirstOrThrow();
  }

  async function priceRows(id: string) {
    return db().selectFrom('productosdetalle').selectAll().where('idproducto', '=', id).orderBy('idempresa').execute();
  }

  async function syncMarks() {
    return db().selectFrom('nsplatformcontrol').selectAll().orderBy('Id').execute();
  }

  async function priceLog(id: string) {
    return db().selectFrom('logcambioprecios').selectAll().where('idproducto', '=', id).orderBy('fecha').execute();
  }

  /** Everything the operation may write, to prove a refusal or a replay wrote nothing. */
  async function snapshot() {
    const count = async (table: 'logcambioprecios' | 'bitacorasistema' | 'nsplatformcontrol') =>
      Number(
        (
          await db()
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      productos: await db().selectFrom('productos').selectAll().orderBy('idproducto').execute(),
      productosdetalle: await db().selectFrom('productosdetalle').selectAll().orderBy('idproducto').orderBy('idempresa').execute(),
      modificadores: await db().selectFrom('modificadores').selectAll().orderBy('idproducto').orderBy('idmodificador').execute(),
      logcambioprecios: await count('logcambioprecios'),
      bitacorasistema: await count('bitacorasistema'),
      nsplatformcontrol: await count('nsplatformcontrol'),
    };
  }

  return { put, productRow, priceRows, syncMarks, priceLog, snapshot };
}
