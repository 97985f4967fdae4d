/**
 * What Babelfish (a T-SQL engine on PostgreSQL 16, reached over TDS like SQL Server) does
 * otherwise than SQL Server, as a run of the `mssql` project on Babelfish 4.2 found (issue 29).
 * A test that needs SQL Server's own behaviour skips on Babelfish, saying which; on SQL Server
 * and PostgreSQL nothing skips.
 */
import { inject, type TestContext } from 'vitest';

export const BABELFISH_DIFFERS = {
  tableHints: 'Babelfish ignores table hints (UPDLOCK, TABLOCKX): a hinted read locks nothing',
  readersWait: "Babelfish's readers see the last committed row (PostgreSQL's MVCC) and never wait for a writer",
  lockTimeout: 'Babelfish reports a lock timeout as error 33557097, not 1222',
  likeEscape: 'Babelfish matches LIKE … ESCAPE wrongly when a leading % comes before an escaped character',
  alterDatabase: 'Babelfish has no ALTER DATABASE: a database cannot be taken offline',
  reseedZero: 'Babelfish refuses DBCC CHECKIDENT … RESEED to 0',
} as const;

export type BabelfishDifference = keyof typeof BABELFISH_DIFFERS;

const babelfish = inject('sqlServer')?.babelfish ?? null;

/** Skips the running test on Babelfish, naming the behaviour it needs from SQL Server. */
export function skipOnBabelfish(skip: TestContext['skip'], difference: BabelfishDifference): void {
  skip(babelfish !== null, `${BABELFISH_DIFFERS[difference]} (Babelfish ${babelfish})`);
}
