/**
 * Realistic accounts and shifts written straight into a branch's POS database, for tests that
 * read them: headers with the totals of the totals function, lines, payments, and closed
 * accounts as a shift close leaves them. Rows are completed through the installed schema, as the
 * demo seed and the agent complete theirs.
 */
import { writeAccount, writeClosedAccount, type AccountSpec, type WrittenAccount } from '../../src/demo/account-writer.js';
import { DEMO_COMPANY } from '../../src/demo/seed.js';
import type { InstalledSchema } from '../../src/pos/columns.js';
import { dialectOf } from '../../src/pos/sql-dialect.js';
import { type PosDb } from '../../src/pos/schema.js';
import { readPosSchema } from '../../src/pos/runtime.js';

export type { WrittenAccount };

/** What a test states about an account; everything else is a plain dine-in account at CAJA1. */
export type AccountFixture = Partial<AccountSpec> & Pick<AccountSpec, 'fecha' | 'lines'>;

export interface ShiftFixture {
  idturno: number;
  apertura: Date;
  cierre?: Date | null;
  estacion?: string;
}

export class PosFixtures {
  #orden = 0;

  private constructor(
    readonly db: PosDb,
    readonly schema: InstalledSchema,
  ) {}

  static async for(db: PosDb): Promise<PosFixtures> {
    return new PosFixtures(db, await readPosSchema(db, dialectOf(db)));
  }

  /** Leaves the branch without accounts, invoices or shifts, whatever its seed wrote. */
  async clearAccounts(): Promise<void> {
    for (const table of [
      'tempcheqdet',
      'tempchequespagos',
      'tempfoliosfacturados',
      'tempcheques',
      'cheqdet',
      'chequespagos',
      'foliosfacturados',
      'cheques',
      'facturas',
      'mesasasignadas',
      'turnos',
    ] as const) {
      await this.db.deleteFrom(table).execute();
    }
  }

  async shift(s: ShiftFixture): Promise<void> {
    const row = this.schema.completeRow('turnos', {
      idturno: s.idturno,
      fondo: '1000.00',
      apertura: s.apertura,
      cierre: s.cierre ?? null,
      idestacion: s.estacion ?? 'CAJA1',
      cajero: 'CAJERO',
      idempresa: DEMO_COMPANY,
      // A station's shift, as SR keeps it.
      idmesero: '',
      fondodolares: 0,
      efectivo: 0,
      tarjeta: 0,
      vales: 0,
      credito: 0,
    });
    await this.db.insertInto('turnos').values(row).execute();
  }

  #spec(a: AccountFixture): AccountSpec {
    return {
      estacion: 'CAJA1',
      idempresa: DEMO_COMPANY,
      seriefolio: 'A',
      mesa: '1',
      idmesero: '01',
      nopersonas: 2,
      tipodeservicio: 1,
      orden: ++this.#orden,
      numcheque: 0,
      idturno: 0,
      cierre: null,
      pagado: false,
      cancelado: false,
      impreso: false,
      facturado: false,
      usuario: 'CAJERO',
      pagos: [],
      ...a,
    };
  }

  /** An account in the temporary tables (open unless the fixture says otherwise). */
  tempOrder(a: AccountFixture): Promise<WrittenAccount> {
    return writeAccount(this.db, this.schema, this.#spec(a));
  }

  /** A paid account of shift `idturno`, closed by that shift: in the history tables only. */
  closedOrder(a: AccountFixture & { idturno: number; numcheque: number }): Promise<WrittenAccount> {
    const cierre = a.cierre ?? new Date(a.fecha.getTime() + 30 * 60_000);
    return writeClosedAccount(this.db, this.schema, this.#spec({ pagado: true, impreso: true, cierre, pagos: [{ idformadepago: 'EFE' }], ...a }));
  }

  /**
   * A history account whose folio while open was `temp`'s: the copy of a temporary account that is
   * still present (SR can keep temporary rows after a close), or an earlier shift's account that
   * had the same temporary folio (SR numbers them from 1 again once tempcheques is emptied).
   */
  async closedCopyOf(temp: Pick<WrittenAccount, 'folio'>, a: AccountFixture & { idturno: number }): Promise<WrittenAccount> {
    return writeAccount(this.db, this.schema, this.#spec(a), { foliotempcheques: temp.folio, idturnoCierre: a.idturno });
  }
}
