/**
 * The printer registry's rows (gw_printers, migration 002). Every lookup is scoped to the user:
 * another user's printer is never found, so the API answers it like a missing one.
 *
 * Every print looks its printers up before its job can leave, so the printers found are cached
 * (access-cache.ts) and a print costs no store round trip: a change to a printer is announced to
 * every gateway, which forgets it. Printers are never deleted; a new one is not cached until found.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { announce, type AccessCache } from './access-cache.js';
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
  // Bumped whenever cached printers are forgotten: a row read before a change committed must not
  // be cached after the change was announced.
  #generation = 0;

  constructor(
    private readonly db: Kysely<GatewayDatabase>,
    private readonly cache: AccessCache<{ userId: number; printer: StoredPrinter }>,
  ) {}

  /** Forgets a cached printer (every one when undefined): it changed, perhaps in another gateway. */
  forget(id?: string): void {
    this.#generation++;
    if (id === undefined) this.cache.clear();
    else this.cache.delete(id);
  }

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
    const found: StoredPrinter[] = [];
    const unknown: string[] = [];
    for (const id of ids) {
      const cached = this.cache.get(id);
      if (cached === undefined) unknown.push(id);
      else if (cached.userId === userId) found.push(cached.printer);
    }
    if (unknown.length === 0) return found;
    const generation = this.#generation;
    const rows = await this.db.selectFrom('gw_printers').selectAll().where('id', 'in', unknown).execute();
    for (const row of rows) {
      const printer = printerFromRow(row);
      if (generation === this.#generation) this.cache.set(printer.id, { userId: Number(row.user_id), printer });
      if (Number(row.user_id) === userId) found.push(printer);
    }
    return found;
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
    const printer = await this.db.transaction().execute(async (trx) => {
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
      await announce(trx, `printer:${id}`);
      return printerFromRow(updated);
    });
    // Not left to the announcement: this gateway may not be listening.
    this.forget(id);
    return printer;
  }
}
