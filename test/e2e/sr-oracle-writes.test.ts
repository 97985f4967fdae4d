/**
 * SR's own writes as the oracle of ours: every INSERT and UPDATE in ../shared/sr-traces/ (read
 * when this runs) is either mirrored by one of our operations, and then each column SR names
 * holds a value in our rows where SR writes one, or listed below with why no operation of ours
 * mirrors it. An INSERT … SELECT (the close's archive copies) is checked as a copy: every column
 * SR copies, ours copies, value for value, and the columns SR fills with the shift are filled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstalledSchema } from '../../src/pos/columns.js';
import type { PosTable } from '../../src/pos/schema.js';
import { SR10 } from '../support/schema-variant.js';
import { ARCHIVED_TEMP, liveShift, valueOf, type Row, type Scenario } from '../support/sr-scenario.js';
import { statement, writesOf, type TraceName, type TraceWrite } from '../support/sr-traces.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';

/** Which of the scenario's kept rows each mirrored statement wrote (step.table). */
const MIRRORED: Record<TraceName, Record<number, string>> = {
  'order-lifecycle': {
    34: 'opened.turnos',
    37: 'opened.nsplatformcontrol',
    38: 'opened.bitacoraEnvioVentas',
    39: 'opened.parametros',
    91: 'opened.tempcheques quick.tempcheques',
    93: 'opened.folios quick.folios',
    96: 'opened.cuentas',
    123: 'opened.tempcheques',
    124: 'opened.tempcheques',
    127: 'opened.cuentas',
    220: 'lines.detallescuentas',
    221: 'lines.tempcheqdet',
    222: 'lines.folios',
    226: 'lines.parametros',
    229: 'lines.tempcheqdet',
    230: 'lines.productosenproduccion',
    // SR recomputes and stores the totals after each change (268) and again before printing
    // (313, 351) and paying (461, 585); ours are stored with every change.
    268: 'lines.tempcheques',
    269: 'lines.tempcheques',
    272: 'lines.cuentas',
    313: 'lines.tempcheques quick.tempcheques',
    314: 'lines.tempcheques quick.tempcheques',
    317: 'lines.cuentas',
    351: 'lines.tempcheques quick.tempcheques',
    352: 'lines.tempcheques quick.tempcheques',
    355: 'lines.cuentas',
    325: 'quick.tempcheques paid.tempcheques',
    361: 'quick.tempcheques paid.tempcheques',
    362: 'quick.folios paid.folios',
    370: 'quick.tempcheques',
    461: 'quick.tempcheques',
    462: 'quick.tempcheques',
    465: 'lines.cuentas',
    515: 'quick.tempchequespagos paid.tempchequespagos',
    548: 'quick.tempcheques paid.tempcheques',
    585: 'quick.tempcheques paid.tempcheques',
    586: 'quick.tempcheques paid.tempcheques',
    328: 'printed.cuentas',
    363: 'printed.cuentas',
  },
  'shift-close': {
    75: 'closed.cheques',
    79: 'closed.cheques',
    80: 'closed.cheqdet',
    81: 'closed.chequespagos',
    83: 'closed.cancela',
    84: 'closed.cheqpedidos',
    85: 'closed.bitacoratarjetacredito',
    86: 'closed.bitacoraeasygoband',
    87: 'closed.numerostarjetas',
    88: 'closed.foliosfacturados',
    89: 'closed.mesas',
    91: 'closed.mesas',
    95: 'closed.turnos',
    96: 'closed.folios',
    97: 'closed.parametros',
    100: 'closed.facturasmovtos',
    101: 'closed.cheqdet',
    102: 'closed.chequespagos',
    103: 'closed.cheqpedidos',
    104: 'closed.cancela',
    105: 'closed.bitacoratarjetacredito',
    107: 'closed.bitacoratarjetacredito',
    108: 'closed.bitacoraeasygoband',
    109: 'closed.numerostarjetas',
    110: 'closed.foliosfacturados',
    112: 'closed.turnos',
    124: 'closed.turnos',
    // The queued rows are applied in the same transaction (236-237): what they held, movsinv holds.
    133: 'closed.movsinv',
    134: 'closed.reservaciones',
    135: 'closed.reservaciones',
    138: 'closed.notificaciones',
    203: 'closed.cheques',
    204: 'closed.cheques',
    229: 'closed.bitacorasistema',
    236: 'closed.movsinv',
    242: 'closed.bitacorasistema',
    247: 'closed.nsplatformcontrol',
  },
};

/** SR's writes no operation of ours mirrors, and why. */
const NOT_MIRRORED: Record<TraceName, Record<number, string>> = {
  'order-lifecycle': {
    54: "SR's terminals marking themselves offline: the POS application's own presence",
    58: "a terminal marking itself online: the POS application's own presence",
    149: "SR's licence check",
    155: 'a terminal registering its name, serial and addresses',
    186: 'a terminal taking the account on screen (cuentaenuso); we take the row lock for the length of one request instead',
    252: 'the terminal releasing the account (cuentaenuso=0)',
    384: "SR's own ticket format counter while it prints",
    385: "SR's own ticket format counter while it prints",
    589: 'the handheld totals of an account whose handheld rows SR deleted at 552: ours are deleted before, and a quick sale never has them',
  },
  'shift-close': {
    93: 'frees every table; after row 91 it could change only a table an active assignment holds (see docs/SR-FIDELITY.md)',
    106: 're-points kitchen rows that row 94 already deleted; ours are deleted the same way',
    207: "writes the archived check's totals into the handheld row of the temporary folio equal to its new folio: another account's",
    254: 'marks finished elaborations applied; what SR writes for them is not in the traces, so they are left to SR',
  },
};

let stack: TestStack;
let schema: InstalledSchema;
let scenario: Scenario;

beforeAll(async () => {
  stack = await startTestStack();
  schema = stack.agents.get(BRANCH)!.pos.schema;
  scenario = await liveShift(stack, BRANCH);
  await scenario.close();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const TRACES: TraceName[] = ['order-lifecycle', 'shift-close'];

/**
 * The columns of a write our table has, matched ignoring case as SQL Server does (SR writes
 * `Usuarioapertura`, `Estatus`). SR 10's installations lack WorkspaceId, and nothing else.
 */
function installed(w: TraceWrite, table: string): string[] {
  const ours = new Set(schema.columnNames(table as PosTable).map((c) => c.toLowerCase()));
  const missing = w.columns.filter((c) => !ours.has(c.toLowerCase()));
  expect(
    missing.filter((c) => !(SR10 && c === 'WorkspaceId')),
    `${table} lacks columns SR writes at row ${w.row}`,
  ).toEqual([]);
  return w.columns.filter((c) => ours.has(c.toLowerCase()));
}

/** Columns SR writes NULL itself (order-lifecycle row 91: `cierre` of a new account). */
function writtenNull(text: string, w: TraceWrite): Set<string> {
  const values = /VALUES\s*\(([\s\S]*)\)\s*$/i.exec(text)?.[1];
  if (!values || w.kind !== 'insert') return new Set();
  const parts = values.split(/,(?=(?:[^']*'[^']*')*[^']*$)/).map((v) => v.trim());
  return new Set(w.columns.filter((_, i) => /^NULL$/i.test(parts[i] ?? '')));
}

const show = (v: unknown) => (v instanceof Date ? v.toISOString() : Buffer.isBuffer(v) ? v.toString('hex') : String(v));

describe("SR's writes", () => {
  it('each INSERT and UPDATE in the traces is mirrored by an operation of ours, or says why not', () => {
    for (const name of TRACES) {
      const rows = writesOf(name).map((w) => w.row);
      expect(rows.length, name).toBeGreaterThan(20);
      const classified = [...Object.keys(MIRRORED[name]), ...Object.keys(NOT_MIRRORED[name])].map(Number);
      expect(
        rows.filter((r) => !classified.includes(r)),
        `${name}: writes neither mirrored nor explained`,
      ).toEqual([]);
      expect(
        classified.filter((r) => !rows.includes(r)),
        `${name}: listed rows that are not writes`,
      ).toEqual([]);
      expect(Object.keys(MIRRORED[name]).filter((r) => r in NOT_MIRRORED[name])).toEqual([]);
    }
  });

  for (const name of TRACES) {
    it(`${name}: every column SR writes a value to holds one in our rows`, () => {
      const failures: string[] = [];
      for (const w of writesOf(name).filter((x) => x.kind !== 'insert-select' && MIRRORED[name][x.row])) {
        for (const key of MIRRORED[name][w.row]!.split(' ')) {
          const table = key.split('.')[1]!;
          const ours = scenario.rows.get(key);
          if (ours === undefined && SR10 && table === 'nsplatformcontrol') continue;
          if (!ours || ours.length === 0) {
            failures.push(`row ${w.row}: no ${key} rows`);
            continue;
          }
          const nulls = writtenNull(statement(name, w.row), w);
          for (const column of installed(w, table).filter((c) => !nulls.has(c))) {
            const empty = ours.filter((r) => valueOf(r, column) === null || valueOf(r, column) === undefined);
            if (empty.length > 0) failures.push(`row ${w.row}: ${table}.${column} NULL in ${empty.length} of ${ours.length}`);
          }
        }
      }
      expect(failures).toEqual([]);
    });
  }

  it("the close's archive copies (shift-close rows 79-88, 138) carry every column SR copies, with the shift in the columns it fills", () => {
    const failures: string[] = [];
    const folioColumns = new Set(ARCHIVED_TEMP.map(([, column]) => column));
    for (const w of writesOf('shift-close').filter((x) => x.kind === 'insert-select')) {
      const target = MIRRORED['shift-close'][w.row]!;
      const history = scenario.rows.get(target) ?? [];
      const temp =
        w.table === 'cheques' ? 'tempcheques' : w.table === 'notificaciones' ? 'tempnotificaciones' : ARCHIVED_TEMP.find(([, , h]) => h === w.table)![0];
      const before = scenario.rows.get(`before.${temp}`) ?? [];
      if (history.length === 0 || history.length !== before.length) failures.push(`row ${w.row}: ${before.length} ${temp} rows became ${history.length}`);
      for (const column of installed(w, w.table)) {
        if (w.literalColumns.includes(column)) {
          if (history.some((r) => valueOf(r, column) === null)) failures.push(`row ${w.row}: ${w.table}.${column} NULL`);
          continue;
        }
        // The column naming the account is pointed at the new folio (rows 101-110).
        if (folioColumns.has(column)) continue;
        // SR's 79 copies the shift its row 75 gave the accounts, and the account's folio as foliotempcheques.
        if (column === 'idturno') {
          if (history.some((r) => Number(valueOf(r, column)) !== scenario.idTurno)) failures.push(`row ${w.row}: ${w.table}.idturno not the shift`);
          continue;
        }
        const source = column === 'foliotempcheques' ? 'folio' : column;
        const values = (rows: Row[], c: string) => rows.map((r) => show(valueOf(r, c))).sort();
        if (JSON.stringify(values(history, column)) !== JSON.stringify(values(before, source))) failures.push(`row ${w.row}: ${w.table}.${column} not copied`);
      }
    }
    expect(failures).toEqual([]);
  });
});
