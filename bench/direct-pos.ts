/** What the write benches' direct baselines share: an operation run in a transaction of its own. */
import pino from 'pino';
import type { PosContext } from '../src/pos/context.js';
import type { PosRuntime } from '../src/pos/runtime.js';

/** Runs `fn` in one transaction on the benchmark's own connection to the branch database. */
export function directTransaction(pos: PosRuntime): <T>(fn: (ctx: PosContext) => Promise<T>) => Promise<T> {
  const log = pino({ level: 'silent' });
  return (fn) => pos.db.transaction().execute((trx) => fn({ db: trx, dialect: pos.dialect, schema: pos.schema, log, now: new Date() }));
}

/** A quick-sale account at CAJA1, not tied to a shift: what each timed write starts from. */
export const BENCH_ACCOUNT = {
  estacion: 'CAJA1',
  serie: 'A',
  idEmpresa: '0000000001',
  noPersonas: 2,
  mesa: '',
  idMesero: '01',
  turnDependent: false,
  tipoDeServicio: 1 as const,
};
