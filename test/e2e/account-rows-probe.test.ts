/**
 * Seeded random sequences of account writes through the API (open with lines and modifiers, add,
 * cancel lines, both discounts, print, reopen, pay, cancel, quick sales; dine-in at a table or
 * not, other services naming a table; with and without handheld devices; products on one or
 * two monitors), each followed by the checks of the rows SR's terminals, monitors and devices
 * read beside the account's lines:
 * - lines numbered 1..n, and the header's totals those the totals function gives for them
 *   (TOTALS.md: recomputed from the lines);
 * - a live kitchen row per line and monitor of its product, at the line's number, with its
 *   product, quantity, modifier and composite marks and priority (OL 230); cancelled rows at 0,
 *   none live for a cancelled account (SR-FIDELITY, Cancel products);
 * - a `tempcancela` row per cancelled line;
 * - with devices, a dine-in account at a table has one `cuentas` row with the header's totals
 *   (OL 272) and the table's `detallescuentas` are its lines (OL 220); a paid or cancelled one
 *   has neither (OL 551-552), nor does any other account;
 * - one production number per request, above the last (OL 206, 222);
 * - no table occupancy or assignment written (OL 87-97 write none), and after the close no
 *   kitchen, handheld or temporary row of the accounts it archived (SC 94, 113-123).
 */
import { describe, expect, it } from 'vitest';
import { totalsLineOf } from '../../src/pos/operations/account.js';
import { loosely } from '../../src/pos/schema.js';
import { computeTotals, Dec, totalsToHeaderColumns } from '../../src/pos/totals.js';
import { accountSuite } from '../support/accounts.js';
import { BRANCH } from '../support/stack.js';

const { db, stack, write } = accountSuite();

const SEED = 1;
const ROUNDS = 4;
const STEPS = 25;
const COMPANY = '0000000001';

/** mulberry32: the same sequence for a seed, on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(r: Rng, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;

const BASES = ['3001', '3002', '3005', '2005', '1005', '1101', '9501', '4001', '1001'];
const MODIFIERS: Record<string, string[]> = { '3001': ['9001', '9003'], '3002': ['9002'], '3005': ['9004'], '2005': ['9002'] };

/** One to three base products, fractional quantities now and then, each with some of its modifiers. */
function randomLines(r: Rng): Array<Record<string, unknown>> {
  const lines: Array<Record<string, unknown>> = [];
  for (let i = Math.floor(r() * 3); i >= 0; i--) {
    const base = pick(r, BASES);
    lines.push({ movimiento: lines.length + 1, idProducto: base, cantidad: pick(r, [1, 2, 3, 0.5, 1.25]) });
    for (const m of MODIFIERS[base] ?? []) if (r() < 0.5) lines.push({ movimiento: lines.length + 1, idProducto: m, cantidad: 1, modificador: true });
  }
  return lines;
}

interface Account {
  folio: number;
  mesa: string;
  servicio: number;
  devices: boolean;
  state: 'open' | 'printed' | 'paid' | 'cancelled';
  cancelledLines: number;
}

type Row = Record<string, unknown>;
const dec = (v: unknown) => new Dec(typeof v === 'string' || typeof v === 'number' ? v : 0);
const trim = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

async function monitorsByProduct(): Promise<Map<string, string[]>> {
  const rows = await db().selectFrom('productosmonitores').select(['idproducto', 'idmonitor']).execute();
  const byProduct = new Map<string, string[]>();
  for (const r of rows) byProduct.set(trim(r.idproducto), [...(byProduct.get(trim(r.idproducto)) ?? []), trim(r.idmonitor)].sort());
  return byProduct;
}

async function linesOf(folio: number) {
  return db()
    .selectFrom('tempcheqdet as d')
    .leftJoin('productos as p', 'p.idproducto', 'd.idproducto')
    .leftJoin('grupos as g', 'g.idgrupo', 'p.idgrupo')
    .selectAll('d')
    .select('g.clasificacion')
    .where('d.foliodet', '=', folio)
    .orderBy('d.movimiento')
    .execute();
}

type Line = Awaited<ReturnType<typeof linesOf>>[number];

function expectTotals(tag: string, account: Account, header: Row, lines: Line[]): void {
  expect(
    lines.map((l) => Number(l.movimiento)),
    tag,
  ).toEqual(lines.map((_, i) => i + 1));
  const expected = totalsToHeaderColumns(computeTotals(lines.map(totalsLineOf), String(header.descuento)));
  for (const [column, value] of Object.entries(expected)) {
    // A payment adds its tips to these.
    if (account.state === 'paid' && column.startsWith('totalconpropina')) continue;
    expect(dec(header[column]).toFixed(4), `${tag} ${column}`).toBe(dec(value).toFixed(4));
  }
  lines.forEach((l, i) => {
    if (!l.modificador) return;
    const base = lines.slice(0, i).findLast((b) => !b.modificador)!;
    expect([trim(l.idproductocompuesto), l.productocompuestoprincipal], `${tag} marks of ${i + 1}`).toEqual([trim(base.idproducto), false]);
  });
}

async function expectKitchen(tag: string, account: Account, lines: Line[], monitors: Map<string, string[]>): Promise<void> {
  const rows = await db().selectFrom('productosenproduccion').selectAll().where('folio', '=', account.folio).execute();
  const live = rows.filter((k) => !k.cancelado);
  for (const k of rows.filter((k) => k.cancelado)) expect(Number(k.movimiento), `${tag} cancelled kitchen row`).toBe(0);
  const shown = account.state === 'cancelled' ? [] : lines;
  expect(live.length, `${tag} live kitchen rows`).toBe(shown.reduce((n, l) => n + (monitors.get(trim(l.idproducto))?.length ?? 0), 0));
  for (const l of shown) {
    const ofLine = live.filter((k) => Number(k.movimiento) === Number(l.movimiento));
    expect(ofLine.map((k) => trim(k.idmonitor)).sort(), `${tag} monitors of line ${l.movimiento}`).toEqual(monitors.get(trim(l.idproducto)) ?? []);
    for (const k of ofLine) {
      const seen = [
        trim(k.idproducto),
        dec(k.cantidad).toFixed(3),
        !!k.modificador,
        trim(k.idproductocompuesto),
        !!k.productocompuestoprincipal,
        trim(k.prioridad),
      ];
      const line = [
        trim(l.idproducto),
        dec(l.cantidad).toFixed(3),
        !!l.modificador,
        trim(l.idproductocompuesto),
        !!l.productocompuestoprincipal,
        trim(l.prioridadproduccion),
      ];
      expect(seen, `${tag} kitchen row of line ${l.movimiento}`).toEqual(line);
    }
  }
}

async function expectHandheld(tag: string, account: Account, header: Row, lines: Line[]): Promise<void> {
  const cuentas = await db().selectFrom('cuentas').selectAll().where('foliocuenta', '=', account.folio).execute();
  const ownsTable = account.servicio === 1 && account.mesa !== '';
  const details = ownsTable ? await db().selectFrom('detallescuentas').selectAll().where('clavemesa', '=', account.mesa).orderBy('movimiento').execute() : [];
  if (!(account.devices && ownsTable && (account.state === 'open' || account.state === 'printed'))) {
    expect([cuentas, details], `${tag} no handheld rows`).toEqual([[], []]);
    return;
  }
  expect(cuentas.length, `${tag} one cuentas row`).toBe(1);
  for (const column of ['total', 'subtotal', 'totalimpuesto1', 'descuentoimporte'] as const) {
    expect(dec(cuentas[0]![column]).toFixed(4), `${tag} cuentas.${column}`).toBe(dec(header[column]).toFixed(4));
  }
  const copy = (d: Row, clave: unknown) => [
    Number(d.movimiento),
    trim(clave),
    dec(d.cantidad).toFixed(4),
    dec(d.precio).toFixed(4),
    !!d.modificador,
    trim(d.idproductocompuesto),
    !!d.productocompuestoprincipal,
  ];
  expect(
    details.map((d) => copy(d, d.clave)),
    `${tag} detallescuentas`,
  ).toEqual(lines.map((l) => copy(l, l.idproducto)));
}

async function expectRows(step: string, accounts: readonly Account[], monitors: Map<string, string[]>): Promise<void> {
  for (const account of accounts) {
    const tag = `${step}, folio ${account.folio}:`;
    const header = await db().selectFrom('tempcheques').selectAll().where('folio', '=', account.folio).executeTakeFirstOrThrow();
    const lines = await linesOf(account.folio);
    expectTotals(tag, account, header, lines);
    await expectKitchen(tag, account, lines, monitors);
    const cancela = await db().selectFrom('tempcancela').select('clave').where('foliocheque', '=', account.folio).execute();
    expect(cancela.length, `${tag} tempcancela`).toBe(account.cancelledLines);
    await expectHandheld(tag, account, header, lines);
  }
}

async function setDevices(on: boolean): Promise<void> {
  await db().deleteFrom('registro_dispositivos').execute();
  if (!on) return;
  const device = { id_dispositivo: 'tablet-1', nombre_dispositivo: 'Tableta', fecha: new Date(), ultima_actualizacion: new Date() };
  await loosely(db()).insertInto('registro_dispositivos').values(stack().agents.get(BRANCH)!.pos.schema.completeRow('registro_dispositivos', device)).execute();
}

async function payableTotal(folio: number): Promise<number> {
  const header = await db().selectFrom('tempcheques').select('descuento').where('folio', '=', folio).executeTakeFirstOrThrow();
  return computeTotals((await linesOf(folio)).map(totalsLineOf), String(header.descuento)).total.toNumber();
}

/** One random write on an open or printed account; what it did, or undefined when it did nothing. */
async function randomStep(r: Rng, account: Account): Promise<string | undefined> {
  const at = `/temp_ordenes/{lk}/${account.folio}`;
  const lines = await linesOf(account.folio);
  const op = r();
  const done = async (what: string, path: string, body: unknown, state = account.state) => {
    const res = await write(`${at}${path}`, body);
    expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    account.state = state;
    return what;
  };
  const pay = async () => {
    const total = await payableTotal(account.folio);
    return total > 0 ? done('pay', '/pagar', { pagos: [{ idFormaDePago: 'EFE', importe: total }] }, 'paid') : undefined;
  };
  const cancel = async () => {
    account.cancelledLines += lines.length;
    return done('cancel', '/cancelar', { razon: 'probe' }, 'cancelled');
  };
  if (account.state === 'printed') return op < 0.4 ? done('reopen', '/reabrir', {}, 'open') : op < 0.8 ? pay() : cancel();
  if (op < 0.3) return done('add', '/productos', { productos: randomLines(r) });
  if (op < 0.5 && lines.length > 0) {
    const picked = lines.filter(() => r() < 0.35);
    if (picked.length === 0) picked.push(pick(r, lines));
    account.cancelledLines += withModifiers(lines, new Set(picked.map((l) => Number(l.movimiento))));
    const productos = picked.map((l) => ({ movimiento: Number(l.movimiento), idProducto: trim(l.idproducto) }));
    return done('cancel lines', '/cancelar_productos', { productos, razon: 'probe' });
  }
  if (op < 0.6) return done('general discount', '/descuento', { modo: 'porcentaje', valor: pick(r, [0, 5, 12.5, 100]) });
  if (op < 0.7 && lines.length > 0) {
    const l = pick(r, lines);
    const productos = [{ movimiento: Number(l.movimiento), idProducto: trim(l.idproducto), modo: 'porcentaje', valor: pick(r, [0, 10, 100]) }];
    return done('line discount', '/descuento_productos', { productos });
  }
  if (op < 0.8) return done('print', '/imprimir', {}, 'printed');
  return op < 0.9 ? pay() : cancel();
}

/** How many lines a cancellation of these line numbers takes: each, and the modifiers after a base taken. */
function withModifiers(lines: readonly Line[], chosen: ReadonlySet<number>): number {
  let baseTaken = false;
  return lines.filter((l) => {
    if (!l.modificador) baseTaken = chosen.has(Number(l.movimiento));
    return chosen.has(Number(l.movimiento)) || (l.modificador && baseTaken);
  }).length;
}

describe('random writes on accounts', () => {
  it('leave kitchen, handheld, cancellation and header rows as the lines say, and nothing after the close', async () => {
    // Two products on both monitors.
    await loosely(db())
      .insertInto('productosmonitores')
      .values([
        { idproducto: '3001', idmonitor: '02', minutosalerta: 0, minutospreparacion: 0 },
        { idproducto: '1101', idmonitor: '01', minutosalerta: 0, minutospreparacion: 0 },
      ])
      .execute();
    const monitors = await monitorsByProduct();
    const r = random(SEED);
    const held = await db().selectFrom('tempcheques').select('mesa').where('pagado', '=', false).where('cancelado', '=', false).execute();
    const tables = ['1', '2', '3', '4', '5', '6', 'T1', 'T2'].filter((t) => !held.some((h) => trim(h.mesa) === t));
    const tablesBefore = await db().selectFrom('mesas').select(['idmesa', 'estatus_ocupacion']).orderBy('idmesa').execute();
    const folios: number[] = [];
    let lastProduction = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const devices = round % 2 === 0;
      await setDevices(devices);
      const accounts: Account[] = [];
      const free = [...tables];
      for (let k = 0; k < 4; k++) {
        const servicio = r() < 0.7 ? 1 : 2;
        const mesa = servicio === 2 ? (r() < 0.5 ? pick(r, tables) : '') : r() < 0.7 ? free.splice(Math.floor(r() * free.length), 1)[0]! : '';
        const productos = r() < 0.8 ? { productos: randomLines(r) } : {};
        const res = await write('/temp_ordenes/{lk}', {
          estacion: 'CAJA1',
          idEmpresa: COMPANY,
          serie: 'A',
          mesa,
          idMesero: '01',
          tipoDeServicio: servicio,
          ...productos,
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        accounts.push({ folio: res.body.folio, mesa, servicio, devices, state: 'open', cancelledLines: 0 });
      }
      const mesa = r() < 0.5 ? pick(r, tables) : '';
      const quick = await write('/ordenes/{lk}', { estacion: 'CAJA1', idEmpresa: COMPANY, serie: 'A', mesa, idFormaDePago: 'EFE', productos: randomLines(r) });
      expect(quick.status, JSON.stringify(quick.body)).toBe(201);
      accounts.push({ folio: quick.body.folio, mesa, servicio: 3, devices, state: 'paid', cancelledLines: 0 });
      folios.push(...accounts.map((a) => a.folio));
      await expectRows(`round ${round}, opened`, accounts, monitors);

      for (let step = 0; step < STEPS; step++) {
        const account = pick(r, accounts);
        if (account.state === 'paid' || account.state === 'cancelled') continue;
        const before = Math.max(0, ...(await linesOf(account.folio)).map((l) => Number(l.movimiento)));
        const what = await randomStep(r, account);
        if (what === undefined) continue;
        if (what === 'add') {
          const added = (await linesOf(account.folio)).filter((l) => Number(l.movimiento) > before);
          expect(new Set(added.map((l) => Number(l.folioproduccion))).size, 'one production number per request').toBe(1);
          expect(Number(added[0]!.folioproduccion), 'production numbers advance').toBeGreaterThan(lastProduction);
          lastProduction = Number(added[0]!.folioproduccion);
        }
        await expectRows(`round ${round}, step ${step}, ${what} on ${account.folio}`, accounts, monitors);
      }
      for (const account of accounts.filter((a) => a.state === 'open' || a.state === 'printed')) {
        account.cancelledLines += (await linesOf(account.folio)).length;
        expect((await write(`/temp_ordenes/{lk}/${account.folio}/cancelar`, { razon: 'fin' })).status).toBe(200);
        account.state = 'cancelled';
      }
      await expectRows(`round ${round}, all settled`, accounts, monitors);
      expect(await db().selectFrom('mesas').select(['idmesa', 'estatus_ocupacion']).orderBy('idmesa').execute()).toEqual(tablesBefore);
      expect(await db().selectFrom('mesasasignadas').selectAll().execute()).toEqual([]);
    }

    const open = await db().selectFrom('turnos').select('idturno').where('cierre', 'is', null).where('idestacion', '=', 'CAJA1').executeTakeFirstOrThrow();
    const close = await write('/turnos_cierre/{lk}', { idTurno: Number(open.idturno), estacion: 'CAJA1', idEmpresa: COMPANY, serie: 'A' });
    expect(close.status, JSON.stringify(close.body)).toBe(200);
    expect(await db().selectFrom('tempcheques').select('folio').where('folio', 'in', folios).execute()).toEqual([]);
    expect(await db().selectFrom('productosenproduccion').select('folio').where('folio', 'in', folios).execute()).toEqual([]);
    expect(await db().selectFrom('cuentas').select('foliocuenta').where('foliocuenta', 'in', folios).execute()).toEqual([]);
    expect(await db().selectFrom('detallescuentas').select('clavemesa').execute()).toEqual([]);
  });
});
