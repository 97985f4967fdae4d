/**
 * What only a real SQL Server can tell, beside the e2e, integration and T-SQL suites that the
 * `mssql` project runs there unchanged: the reference schema it installs has the same columns
 * as PostgreSQL's, the locks the agent means to take are the ones SQL Server holds
 * (sys.dm_tran_locks), fingerprints are the server's 16 bytes, and each way a connection fails
 * is told apart. Without a SQL Server the project holds only this file, which says why it skipped.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { explainDatabaseError } from '../../src/agent/doctor/index.js';
import { createPosDatabase } from '../../src/demo/pos-database.js';
import { readInstalledSchema, type ColumnInfo, type InstalledSchema } from '../../src/pos/columns.js';
import { nextNumcheque } from '../../src/pos/counters.js';
import { createPosDb, ping, type PosConnection, type PosDbConfig } from '../../src/pos/db.js';
import { accountKey, observeAccounts } from '../../src/pos/events/observe.js';
import { openPos, POS_TABLES, type PosRuntime } from '../../src/pos/runtime.js';
import type { PosDb } from '../../src/pos/schema.js';
import { lockTable } from '../../src/pos/sql-dialect.js';
import { skipOnBabelfish } from '../support/babelfish.js';
import { cluster, newPosDatabase, openPosDb } from '../support/databases.js';
import { schemaFileOf } from '../support/templates.js';
import { posDatabase } from '../../src/config/schema.js';

const server = inject('sqlServer');
const source = inject('sqlServerSource');
const failure = inject('sqlServerFailure');
if (!server && source && 'skip' in source) console.log(`SQL Server suite skipped: ${source.skip}.`);

if (failure) {
  describe('SQL Server', () => {
    it('starts', () => {
      throw new Error(failure);
    });
  });
}

describe.skipIf(!server)(`SQL Server${server ? '' : failure ? ' (not started)' : ' (skipped: no SQL Server; see the line above)'}`, () => {
  const open: PosConnection[] = [];
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
  });

  describe('the reference schema', () => {
    const schemas: Record<'mssql' | 'postgres', InstalledSchema | undefined> = { mssql: undefined, postgres: undefined };
    beforeAll(async () => {
      const mssql = await openPosDb(await newPosDatabase('empty'));
      const postgres = await openPosDb(
        posDatabase({
          dialect: 'postgres',
          url: await createPosDatabase(cluster(), `t_${randomBytes(6).toString('hex')}`, undefined, schemaFileOf(inject('posSchema'))),
        }),
      );
      open.push(mssql, postgres);
      schemas.mssql = await readInstalledSchema(mssql.db, 'mssql', POS_TABLES);
      schemas.postgres = await readInstalledSchema(postgres.db, 'postgres', POS_TABLES);
    }, 300_000);

    // What the agent relies on: names, NOT NULL, identities, decimal places, text widths
    // (varchar(max) reports -1 where PostgreSQL's twin is an unlimited text).
    const shape = (c: ColumnInfo) => ({
      name: c.name,
      nullable: c.nullable,
      identity: c.identity,
      scale: c.numericScale,
      width: c.dataType.includes('char') && c.maxLength !== -1 ? c.maxLength : null,
    });

    it('has the same columns as on PostgreSQL, table by table', () => {
      for (const table of POS_TABLES) {
        const columns = (s: InstalledSchema) => s.columnNames(table).map((name) => shape(s.column(table, name)!));
        expect(columns(schemas.mssql!), table).toEqual(columns(schemas.postgres!));
      }
    });
  });

  describe('locks, as sys.dm_tran_locks shows them', () => {
    let empty: PosConnection;
    let branch: PosRuntime;
    const log = pino({ level: 'silent' });
    beforeAll(async () => {
      empty = await openPosDb(await newPosDatabase('empty'));
      open.push(empty);
      branch = await openPos(await newPosDatabase('branch'), log);
    }, 300_000);
    afterAll(async () => {
      await branch?.close();
    });

    /** The modes of the locks this session holds on a whole table. */
    async function tableLocks(trx: PosDb, table: string): Promise<string[]> {
      const { rows } = await sql<{ mode: string }>`select request_mode as mode from sys.dm_tran_locks
        where request_session_id = @@spid and resource_type = 'OBJECT' and resource_associated_entity_id = object_id(${table})`.execute(trx);
      return rows.map((r) => r.mode);
    }

    it('lockTable holds an exclusive lock on the whole table, even an empty one, until the transaction ends', async ({ skip }) => {
      skipOnBabelfish(skip, 'tableHints');
      await empty.db.transaction().execute(async (trx) => {
        await lockTable(trx, 'tempcheques');
        expect(await tableLocks(trx, 'tempcheques')).toContain('X');
      });
      expect(await tableLocks(empty.db, 'tempcheques')).toEqual([]);
    });

    it("a counter's read holds folios exclusively, as SR's SELECT … FROM folios WITH (TABLOCKX) does", async ({ skip }) => {
      skipOnBabelfish(skip, 'tableHints');
      await branch.db.transaction().execute(async (trx) => {
        await nextNumcheque({ ...branch, db: trx, log, now: new Date() }, 'A');
        expect(await tableLocks(trx, 'folios')).toContain('X');
      });
    });

    it("fingerprints each account with the server's 16-byte MD5: the same while it stays, another once a line changes", async () => {
      const before = await observeAccounts(branch.db);
      expect(before.size).toBeGreaterThan(0);
      for (const account of before.values()) expect(account.fingerprint).toMatch(/^[0-9a-f]{32}$/);
      expect(await observeAccounts(branch.db)).toEqual(before);
      const [account] = before.values();
      await branch.db
        .updateTable('tempcheqdet')
        .set((eb) => ({ cantidad: eb('cantidad', '+', 1) }))
        .where('foliodet', '=', account!.folio)
        .execute();
      const after = await observeAccounts(branch.db);
      expect(after.get(accountKey(account!.folio, account!.opened))!.fingerprint).not.toBe(account!.fingerprint);
    });
  });

  describe('connection failures', () => {
    const base = () => ({ ...server!.config, database: 'master', connectTimeoutMs: 5_000 });
    async function failure(config: PosDbConfig): Promise<string> {
      const conn = await createPosDb(config);
      try {
        await ping(conn.db);
      } catch (error) {
        return explainDatabaseError(config, error);
      } finally {
        await conn.close();
      }
      throw new Error('the connection succeeded');
    }

    it('a wrong password is a refused login', async () => {
      const config = base();
      expect(await failure({ ...config, authentication: { ...config.authentication, password: 'not-the-password' } })).toMatch(/SQL Server refused the login/);
    });

    it('an unknown database is named as such', async () => {
      expect(await failure({ ...base(), database: 'ba_no_such_database' })).toMatch(/database "ba_no_such_database" does not exist/);
    });

    it('a closed port is nothing accepting connections', async () => {
      expect(await failure({ ...base(), server: '127.0.0.1', port: 1, instanceName: undefined })).toMatch(/Nothing accepts connections at 127\.0\.0\.1:1/);
    });
  });
});
