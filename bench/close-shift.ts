/**
 * close-shift: seconds to close a shift holding 2,000 paid accounts of 5 lines each, and the
 * ratio to copying the same rows (headers, lines, payments) with one bulk INSERT … SELECT per
 * table, measured on identical copies of the same database; the median of the rounds' ratios.
 */
import { sql } from 'kysely';
import pino from 'pino';
import { closeShift } from '../src/pos/operations/shift-close.js';
import { openPos } from '../src/pos/runtime.js';
import type { PosTable } from '../src/pos/schema.js';
import { benchLines, insertAccounts } from './accounts.js';
import type { BenchContext } from './run.js';
import { median, time } from './measure.js';
import { posDatabase } from '../src/config/schema.js';
import type { EmbeddedCluster } from '../src/embedded-postgres/cluster.js';

const ACCOUNTS = 2000;
const LINES = 5;
/** The demo data's open shift on CAJA1 (shift 1 is its closed history). */
const OPEN_SHIFT = 2;

/**
 * Rounds on fresh copies: one close is a single sample, and swings with what else the machine
 * does. Each round times both sides back to back, in turns (close first, then copy first), after
 * an untimed round that compiles the code paths of both.
 */
const ROUNDS = 5;

export async function closeShiftBench({ cluster, posUrl }: BenchContext): Promise<string[]> {
  const template = 'pos_close_template';
  await cluster.admin(`CREATE DATABASE ${template} TEMPLATE ${new URL(posUrl).pathname.slice(1)}`);
  await fillShift(cluster.url(template));
  await onCopy(cluster, template, 'pos_close_warm_a', timeClose);
  await onCopy(cluster, template, 'pos_close_warm_b', timeCopy);
  const rounds: Array<{ closeMs: number; copyMs: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const close = () => onCopy(cluster, template, `pos_close_a${round}`, timeClose);
    const copy = () => onCopy(cluster, template, `pos_close_b${round}`, timeCopy);
    if (round % 2 === 0) {
      const closeMs = await close();
      rounds.push({ closeMs, copyMs: await copy() });
    } else {
      const copyMs = await copy();
      rounds.push({ closeMs: await close(), copyMs });
    }
  }
  await cluster.admin(`DROP DATABASE ${template}`);
  const ratios = rounds.map((r) => r.closeMs / r.copyMs);
  const closeMs = median(rounds.map((r) => r.closeMs));
  const copyMs = median(rounds.map((r) => r.copyMs));
  return [
    `close-shift: ratio to bulk copy ${median(ratios).toFixed(2)}  (median of ${ROUNDS} rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}; close ${closeMs.toFixed(0)} ms, bulk copy ${copyMs.toFixed(0)} ms for ${ACCOUNTS} accounts × ${LINES} lines)`,
  ];
}

/**
 * Times `measure` on a fresh copy of the template, dropped afterwards: a copy left behind would
 * be vacuumed by autovacuum (its close deleted 14,000 rows) while later rounds are timed. The
 * checkpoint writes out what creating the copy dirtied, so that neither side pays for it.
 */
async function onCopy(cluster: EmbeddedCluster, template: string, name: string, measure: (url: string) => Promise<number>): Promise<number> {
  await cluster.admin(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  try {
    await cluster.admin('CHECKPOINT');
    return await measure(cluster.url(name));
  } finally {
    await cluster.admin(`DROP DATABASE ${name} WITH (FORCE)`);
  }
}

async function timeClose(url: string): Promise<number> {
  const log = pino({ level: 'silent' });
  const pos = await openPos(posDatabase({ dialect: 'postgres', url }), log);
  try {
    return await time(() =>
      pos.db
        .transaction()
        .execute((trx) =>
          closeShift.run(
            { db: trx, dialect: pos.dialect, schema: pos.schema, log, now: new Date() },
            { idTurno: OPEN_SHIFT, estacion: 'CAJA1', idEmpresa: '0000000001' },
          ),
        ),
    );
  } finally {
    await pos.close();
  }
}

/** The baseline: the same rows copied with one INSERT … SELECT per table, every shared column. */
async function timeCopy(url: string): Promise<number> {
  const baseline = await openPos(posDatabase({ dialect: 'postgres', url }), pino({ level: 'silent' }));
  try {
    const shared = (from: PosTable, to: PosTable, except: string[]) =>
      baseline.schema.columnNames(from).filter((c) => baseline.schema.has(to, c) && !except.includes(c) && !baseline.schema.column(to, c)!.identity);
    const list = (columns: string[], prefix = '') => sql.raw(columns.map((c) => `${prefix}"${c}"`).join(', '));
    const headers = shared('tempcheques', 'cheques', ['folio', 'foliotempcheques']);
    return await time(() =>
      baseline.db.transaction().execute(async (trx) => {
        await sql`insert into cheques (${list(headers)}, foliotempcheques) select ${list(headers)}, folio from tempcheques where idturno = ${OPEN_SHIFT}`.execute(
          trx,
        );
        for (const [from, to, key] of [
          ['tempcheqdet', 'cheqdet', 'foliodet'],
          ['tempchequespagos', 'chequespagos', 'folio'],
        ] as const) {
          const columns = shared(from, to, [key]);
          await sql`insert into ${sql.table(to)} (${list(columns)}, ${sql.ref(key)}) select ${list(columns, 's.')}, c.folio from ${sql.table(from)} s join cheques c on c.foliotempcheques = s.${sql.ref(key)}`.execute(
            trx,
          );
        }
      }),
    );
  } finally {
    await baseline.close();
  }
}

/**
 * 2,000 paid cash accounts of 5 lines in the open shift, written with bulk statements; then
 * vacuumed and analysed, as autovacuum leaves a branch's tables during a shift. Otherwise
 * autovacuum would get to the template's 14,000 new rows at a moment of its choosing, before
 * some rounds' copies and not others, and both sides' plans would change between rounds.
 */
async function fillShift(url: string): Promise<void> {
  const log = pino({ level: 'silent' });
  const pos = await openPos(posDatabase({ dialect: 'postgres', url }), log);
  const { lines, header } = benchLines(LINES);
  for (let start = 0; start < ACCOUNTS; start += 500) {
    const batch = Array.from({ length: Math.min(500, ACCOUNTS - start) }, (_, i) => ({
      ...header,
      seriefolio: 'A',
      numcheque: start + i + 1,
      fecha: new Date(),
      cierre: new Date(),
      pagado: true,
      cancelado: false,
      impreso: true,
      idturno: OPEN_SHIFT,
      estacion: 'CAJA1',
      idempresa: '0000000001',
      usuarioapertura: 'API',
      efectivo: header.total,
    }));
    const folios = await insertAccounts(pos, batch, lines);
    await pos.db
      .insertInto('tempchequespagos')
      .values(
        folios.map(({ folio }) =>
          pos.schema.completeRow('tempchequespagos', { folio, idformadepago: 'EFE', importe: header.total, propina: 0, tipodecambio: 1 }),
        ),
      )
      .execute();
  }
  await sql`vacuum analyze`.execute(pos.db);
  await pos.close();
}
