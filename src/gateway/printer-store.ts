/**
 * The printer registry's rows (gw_printers, migration 002). Every lookup is scoped to the user:
 * another user's printer is never found, so the API answers it like a missing one.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { PrinterCreate, StoredPrinter } from '../protocol/printers.js';
import type { GatewayDatabase, PrinterTable } from './store-schema.js';

function printerFromRow(row: Selectable<PrinterTable>): StoredPrinter {
  return {
    id: row.id,
    licenseKey: row.license_key,
    printerIp: row.printer_ip,
    printerPort: Number(row.printer_port),
    displayName: row.display_name,
    kind: row.kind,
    widthMm: row.width_mm === null ? null : Number(row.width_mm),
    source: row.source,
    sourceId: row.source_id,
    labelWidthMm: Number(row.label_width_mm),
    labelHeightMm: Number(row.label_height_mm),
    labelGapMm: Number(row.label_gap_mm),
    labelDpi: Number(row.label_dpi),
    labelDensity: Number(row.label_density),
    labelSpeed: Number(row.label_speed),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** The columns of the fields given; a field left out is not touched. */
function printerColumns(p: Partial<PrinterCreate>) {
  const columns = {
    license_key: p.licenseKey,
    printer_ip: p.printerIp,
    printer_port: p.printerPort,
    display_name: p.displayName,
    kind: p.kind,
    width_mm: p.widthMm,
    source: p.source,
    source_id: p.sourceId,
    label_width_mm: p.labelWidthMm,
    label_height_mm: p.labelHeightMm,
    label_gap_mm: p.labelGapMm,
    label_dpi: p.labelDpi,
    label_density: p.labelDensity,
    label_speed: p.labelSpeed,
  };
  return Object.fromEntries(Object.entries(columns).filter(([, v]) => v !== undefined)) as Partial<typeof columns>;
}

export class PrinterStore {
  constructor(private readonly db: Kysely<GatewayDatabase>) {}

  async create(userId: number, printer: PrinterCreate): Promise<StoredPrinter> {
    const { license_key, printer_ip, display_name, kind, ...rest } = printerColumns(printer);
    const row = await this.db
      .insertInto('gw_printers')
      .values({ ...rest, user_id: userId, license_key: license_key!, printer_ip: printer_ip!, display_name: display_name!, kind: kind! })
      .returningAll()
      .executeTakeFirstOrThrow();
    return printerFromRow(row);
  }

  /** The user's printers, oldest first; only one branch's with `licenseKey`. */
  async list(userId: number, licenseKey?: string): Promise<StoredPrinter[]> {
    let query = this.db.selectFrom('gw_printers').selectAll().where('user_id', '=', userId);
    if (licenseKey !== undefined) query = query.where('license_key', '=', licenseKey);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map(printerFromRow);
  }

  async get(userId: number, id: string): Promise<StoredPrinter | undefined> {
    const row = await this.db.selectFrom('gw_printers').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
    return row && printerFromRow(row);
  }

  /** Those of `ids` that are the user's printers (missing and foreign ones are left out). */
  async find(userId: number, ids: readonly string[]): Promise<StoredPrinter[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('gw_printers')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', 'in', [...ids])
      .execute();
    return rows.map(printerFromRow);
  }

  /**
   * Changes a printer of the user: `change` gets the current record (locked until commit, so
   * concurrent updates merge in turn) and returns the fields to replace; it may throw to refuse.
   * Undefined when the user has no such printer.
   */
  async update(
    userId: number,
    id: string,
    change: (current: StoredPrinter) => Promise<Partial<PrinterCreate>> | Partial<PrinterCreate>,
  ): Promise<StoredPrinter | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('gw_printers').selectAll().where('user_id', '=', userId).where('id', '=', id).forUpdate().executeTakeFirst();
      if (!row) return undefined;
      const columns = printerColumns(await change(printerFromRow(row)));
      const updated = await trx
        .updateTable('gw_printers')
        .set({ ...columns, updated_at: sql<Date>`now()` })
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return printerFromRow(updated);
    });
  }
}
