/**
 * What only a real SQL Server can tell, beside the e2e, integration and T-SQL suites that the
 * `mssql` project runs there unchanged: the reference schema it installs has the same columns
 * as PostgreSQL's, and each way a connection fails is told apart. Without a SQL Server the
 * project holds only this file, which says why it skipped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { explainDatabaseError } from '../../src/agent/doctor/index.js';
import { createPosDatabase } from '../../src/demo/pos-database.js';
import { readInstalledSchema, type ColumnInfo, type InstalledSchema } from '../../src/pos/columns.js';
import { createPosDb, ping, type PosConnection, type PosDbConfig } from '../../src/pos/db.js';
import { POS_TABLES } from '../../src/pos/runtime.js';
import { cluster, newPosDatabase, openPosDb } from '../support/databases.js';
import { schemaFileOf } from '../support/templates.js';

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
      const postgres = await openPosDb({
        dialect: 'postgres',
        url: await createPosDatabase(cluster(), `t_${randomBytes(6).toString('hex')}`, undefined, schemaFileOf(inject('posSchema'))),
      });
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
