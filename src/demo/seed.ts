/**
 * Demo data for one branch (docs/operations.md, The demo): company, stations, waiters, users, groups,
 * products with IVA 16 %, modifiers, payment methods of every tipo, discount types, folios and
 * settings, an open shift on CAJA1, the attendance of the current operational day (and of the
 * night before it), and the history of an earlier shift (seed-history.ts). Times are placed in
 * the seed's operational day (06:00 to 05:59:59) around `now`, so the demo shows its rules
 * whatever the hour. Rows are completed through the installed schema exactly as the agent
 * completes its own writes.
 */
import type { InstalledSchema } from '../pos/columns.js';
import { insertRows } from '../pos/bulk-insert.js';
import type { PosDb, PosTable } from '../pos/schema.js';
import { precioSinImpuestos } from '../pos/totals.js';
import { DEMO_GROUPS, DEMO_MODIFIERS, DEMO_MONITORS, DEMO_PRODUCTS, DEMO_RECIPES, DEMO_SUPPLIES, MONITOR_OF_GROUP } from './menu.js';
import { demoDay, seedHistory } from './seed-history.js';

export const DEMO_COMPANY = '0000000001';

export interface BranchSeed {
  name: string;
  /** configuracion.forzarmotivocancela */
  forceCancelReason: boolean;
  /** parametros.forzartipodescuento */
  forceDiscountType: boolean;
  /** The clock the seed treats as now (attendance of the current operational day). */
  now?: Date;
}

export async function seedBranch(db: PosDb, schema: InstalledSchema, seed: BranchSeed): Promise<void> {
  const now = seed.now ?? new Date();
  const insert = (table: PosTable, rows: Array<Record<string, unknown>>) =>
    insertRows(
      db,
      table,
      rows.map((r) => schema.completeRow(table, r)),
    );

  await insert('configuracion', [
    { versiondb: '11.0.0.0', forzarmotivocancela: seed.forceCancelReason, nopermitircerrarturnocuentasabiertas: false, nodescargarinventario: false },
  ]);
  await insert('parametros', [
    {
      ultimoturno: 1,
      forzartipodescuento: seed.forceDiscountType,
      impuesto1: 16,
      impuesto2: 0,
      impuesto3: 0,
      monitornivelprioridad: 3,
      monitorprioridadactual: 0,
      ultimofolioimprimirformatoconcuenta: 0,
    },
  ]);
  await insert('parametros2', [{ tipomanejoturno: 1, criteriodescargarecetas: 1 }]);
  // forzardescuento off: the discounts answer it as forzarDescuento and never block on it.
  await insert('parametros3', [{ turnoxmesero: false, forzardescuento: false }]);
  await insert('areasrestaurant', [
    { idarearestaurant: '01', descripcion: 'Comedor', idtiposervicio: 1, Estatus: true },
    { idarearestaurant: '02', descripcion: 'Domicilio', idtiposervicio: 2, Estatus: true },
    { idarearestaurant: '03', descripcion: 'Rápido', idtiposervicio: 3, Estatus: true },
  ]);
  await insert('empresas', [
    { idempresa: DEMO_COMPANY, nombre: seed.name, razonsocial: 'Restaurantes Demo S.A. de C.V.', rfc: 'RDE010101AB1', sucursal: seed.name },
  ]);
  const areas = { idarearestaurant: '01', idarearestaurantdomicilio: '02', idarearestaurantrapido: '03' };
  await insert('estaciones', [
    { idestacion: 'CAJA1', descripcion: 'Caja principal', serie: 'A', seriefolio: 'A', ip: '127.0.0.1', cajacomandero: '', usarturnoestacion: 0, ...areas },
    { idestacion: 'CAJA2', descripcion: 'Caja terraza', serie: 'B', seriefolio: 'B', ip: '127.0.0.1', cajacomandero: '', usarturnoestacion: 0, ...areas },
    // A waiters' terminal: it sells on CAJA1's shift, as SR's terminals do through cajacomandero.
    {
      idestacion: 'TERM1',
      descripcion: 'Comandera meseros',
      serie: 'A',
      seriefolio: 'A',
      ip: '127.0.0.1',
      cajacomandero: 'CAJA1',
      usarturnoestacion: 0,
      ...areas,
    },
  ]);
  await insert('folios', [
    { serie: 'A', ultimofolio: 1000, ultimaorden: 0, ultimofolioproduccion: 0 },
    { serie: 'B', ultimofolio: 5000, ultimaorden: 0, ultimofolioproduccion: 0 },
    { serie: '', ultimofolio: 0, ultimaorden: 0, ultimofolioproduccion: 0 },
  ]);
  await insert('meseros', [
    { idmesero: '01', nombre: 'Juan Pérez', visible: 1, idempresa: DEMO_COMPANY },
    { idmesero: '02', nombre: 'María López', visible: 1, idempresa: DEMO_COMPANY },
  ]);
  await insert('usuarios', [
    { usuario: 'ADMIN', nombre: 'Administrador', administrador: true, status: true, passlastchange: now },
    { usuario: 'CAJERO', nombre: 'Cajero de turno', administrador: false, status: true, passlastchange: now },
  ]);
  await insert(
    'grupos',
    DEMO_GROUPS.map((g) => ({ idgrupo: g.idgrupo, descripcion: g.descripcion, clasificacion: g.clasificacion })),
  );
  await insert(
    'productos',
    DEMO_PRODUCTS.map((p) => ({
      idproducto: p.idproducto,
      descripcion: p.descripcion,
      nombrecorto: p.nombrecorto,
      idgrupo: p.idgrupo,
      visible_menu: p.visible ?? true,
      usarcomedor: true,
      usardomicilio: true,
      usarrapido: true,
    })),
  );
  await insert(
    'productosdetalle',
    DEMO_PRODUCTS.map((p) => ({
      idproducto: p.idproducto,
      idempresa: DEMO_COMPANY,
      precio: p.precio,
      preciosinimpuestos: precioSinImpuestos(p.precio, 16, 0, 0).toFixed(4),
      impuesto1: 16,
      impuesto2: 0,
      impuesto3: 0,
      bloqueado: p.bloqueado ?? false,
      permitirprodcompenmodif: p.idgrupo === 'MOD',
    })),
  );
  const priceOf = new Map(DEMO_PRODUCTS.map((p) => [p.idproducto, p.precio]));
  await insert(
    'modificadores',
    DEMO_MODIFIERS.map(([base, modifier]) => ({ idproducto: base, idmodificador: modifier, precio: priceOf.get(modifier), idempresa: DEMO_COMPANY })),
  );
  // USD: payments stored in dollars, counted in pesos at tipodecambio (as SR's cash cut does).
  await insert('formasdepago', [
    { idformadepago: 'EFE', descripcion: 'Efectivo', tipo: 1, tipodecambio: 1, visible: true },
    { idformadepago: 'USD', descripcion: 'Dólares', tipo: 1, tipodecambio: '17.2500', visible: true },
    { idformadepago: 'TAR', descripcion: 'Tarjeta de crédito/débito', tipo: 2, tipodecambio: 1, visible: true },
    { idformadepago: 'VAL', descripcion: 'Vales de despensa', tipo: 3, tipodecambio: 1, visible: true },
    { idformadepago: 'CRE', descripcion: 'Crédito a cliente', tipo: 4, tipodecambio: 1, visible: true },
  ]);
  await insert('tipodescuento', [
    { idtipodescuento: 'EMP', desc_tipodescuento: 'Empleado', descuento: 10, Visible: true, activar_maximo_descuento: true, imp_maximo_descuento: 0 },
    { idtipodescuento: 'LIB', desc_tipodescuento: 'Libre', descuento: 0, Visible: true, activar_maximo_descuento: false, imp_maximo_descuento: 0 },
    { idtipodescuento: 'GER', desc_tipodescuento: 'Gerencia (oculto)', descuento: 50, Visible: false, activar_maximo_descuento: true, imp_maximo_descuento: 0 },
  ]);
  await insert('motivoscancelacion', [
    { idmotivocancela: '01', descripcion: 'El cliente cambió de opinión' },
    { idmotivocancela: '02', descripcion: 'Producto equivocado' },
  ]);
  await insert(
    'mesas',
    ['1', '2', '3', '4', '5', '6', 'T1', 'T2'].map((idmesa) => ({
      idmesa,
      idarearestaurant: '01',
      personas: idmesa.startsWith('T') ? 6 : 4,
      estatus_ocupacion: 0,
      idempresa: DEMO_COMPANY,
    })),
  );
  await insert('monitoresproduccion', DEMO_MONITORS);
  await insert(
    'productosmonitores',
    DEMO_PRODUCTS.flatMap((p) => {
      const idmonitor = MONITOR_OF_GROUP[p.idgrupo];
      return idmonitor ? [{ idproducto: p.idproducto, idmonitor, minutosalerta: 15, minutospreparacion: 10 }] : [];
    }),
  );
  await insert('almacen', [{ idalmacen: '01', descripcion: 'Almacén general', idempresa: DEMO_COMPANY }]);
  await insert(
    'insumos',
    DEMO_SUPPLIES.map((s) => ({ idinsumo: s.idinsumo, descripcion: s.descripcion, unidad: s.unidad, elaborado: false })),
  );
  await insert(
    'insumosdetalle',
    DEMO_SUPPLIES.map((s) => ({ idinsumo: s.idinsumo, idempresa: DEMO_COMPANY, inventariable: 1, costo: s.costopromedio, costopromedio: s.costopromedio })),
  );
  await insert(
    'costos',
    DEMO_RECIPES.map(([idproducto, idinsumo, cantidad]) => ({ idproducto, idinsumo, cantidad, idempresa: DEMO_COMPANY })),
  );
  await insert(
    'recetasalmacenes',
    DEMO_RECIPES.flatMap(([idproducto, idinsumo]) =>
      ['01', '02', '03'].map((idarearestaurant) => ({ idproducto, idinsumo, idarearestaurant, idalmacen: '01', idempresa: DEMO_COMPANY })),
    ),
  );

  const day = demoDay(now);
  await insert('turnos', [
    {
      idturno: 1,
      fondo: '1500.00',
      apertura: day.sinceStart(0.2),
      idestacion: 'CAJA1',
      cajero: 'CAJERO',
      idempresa: DEMO_COMPANY,
      idmesero: '',
      fondodolares: 0,
      efectivo: 0,
      tarjeta: 0,
      vales: 0,
      credito: 0,
    },
  ]);
  await insert('registroasistencias', [
    { idmovto: '1', idempleado: '01', entrada: day.sinceStart(0.1), salida: null, tipo: 1 },
    { idmovto: '2', idempleado: '02', entrada: day.sinceStart(0.1), salida: day.sinceStart(0.8), tipo: 1 },
    { idmovto: '3', idempleado: 'CAJERO', entrada: day.sinceStart(0.15), salida: day.sinceStart(0.95), tipo: 2 },
    // 02:00 to 05:00 of today's date: the night of the operational day before.
    { idmovto: '4', idempleado: '02', entrada: day.beforeStart(4), salida: day.beforeStart(1), tipo: 1 },
  ]);
  await seedHistory(db, schema, day);
}
