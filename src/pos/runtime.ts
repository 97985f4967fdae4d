/** Opens the POS database for the agent: connection, `ba_` migrations, installed columns, version. */
import type { Logger } from 'pino';
import { readInstalledSchema, type InstalledSchema } from './columns.js';
import { createPosDb, type PosDbConfig } from './db.js';
import { type PosDialectName } from './sql-dialect.js';
import { type PosDb } from './schema.js';
import { migrationsDir, runMigrations } from '../sql-migrations.js';

/** The Soft Restaurant tables the agent reads or writes. */
export const POS_TABLES = [
  'tempcheques',
  'tempcheqdet',
  'tempchequespagos',
  'tempcancela',
  'tempfoliosfacturados',
  'cheques',
  'cheqdet',
  'chequespagos',
  'cancela',
  'foliosfacturados',
  'turnos',
  'productos',
  'productosdetalle',
  'grupos',
  'modificadores',
  'meseros',
  'usuarios',
  'formasdepago',
  'tipodescuento',
  'motivoscancelacion',
  'registroasistencias',
  'bitacorasistema',
  'logcambioprecios',
  'folios',
  'mesas',
  'mesasasignadas',
  'productosenproduccion',
  'nsplatformcontrol',
  'areasrestaurant',
  'empresas',
  'estaciones',
  'facturas',
  'configuracion',
  'parametros',
] as const;

/**
 * Tables the agent writes where they are installed, as Soft Restaurant does (the handheld
 * devices' accounts, kitchen monitors, recipes and stock, the side tables a shift close archives,
 * the cashier's declaration, reservations and notifications, more settings); an installation without one of them just does not get those rows.
 */
export const OPTIONAL_POS_TABLES = [
  'parametros2',
  'parametros3',
  'cuentas',
  'detallescuentas',
  'registro_dispositivos',
  'productosmonitores',
  'monitoresproduccion',
  'costos',
  'insumos',
  'insumosdetalle',
  'recetasalmacenes',
  'inventariopendiente',
  'movsinv',
  'insumoselaboracion',
  'almacen',
  'bitacoraEnvioVentas',
  'tempcheqpedidos',
  'cheqpedidos',
  'tempbitacoratarjetacredito',
  'bitacoratarjetacredito',
  'tempbitacoraeasygoband',
  'bitacoraeasygoband',
  'tempnumerostarjetas',
  'numerostarjetas',
  'facturasmovtos',
  'declaracioncajero',
  'reservaciones',
  'tempnotificaciones',
  'notificaciones',
] as const;

/** The installed columns of every table the agent uses. */
export function readPosSchema(db: PosDb, dialect: PosDialectName, log?: Logger): Promise<InstalledSchema> {
  return readInstalledSchema(db, dialect, POS_TABLES, log, OPTIONAL_POS_TABLES);
}

export interface PosRuntime {
  db: PosDb;
  dialect: PosDialectName;
  schema: InstalledSchema;
  posVersion: string | null;
  close: () => Promise<void>;
}

/** The Soft Restaurant version the installation reports (configuracion.versiondb). */
export async function readPosVersion(db: PosDb): Promise<string | null> {
  const settings = await db.selectFrom('configuracion').select('versiondb').executeTakeFirst();
  return settings?.versiondb?.trim() || null;
}

export async function openPos(config: PosDbConfig, log: Logger): Promise<PosRuntime> {
  const { db, dialect, close } = await createPosDb(config);
  try {
    const applied = await runMigrations(db, migrationsDir(dialect, 'agent'), dialect, 'ba_schema_version');
    if (applied.length > 0) log.info({ applied }, 'agent tables migrated');
    const schema = await readPosSchema(db, dialect, log);
    return { db, dialect, schema, posVersion: await readPosVersion(db), close };
  } catch (error) {
    await close();
    throw error;
  }
}
