/**
 * The `mssql` project's own machinery, where it runs against any TDS endpoint (MSSQL_URL):
 * CREATE DATABASE sent again when another one was updating the catalog, and databases dropped
 * without ALTER DATABASE on an engine that lacks it. The errors are tedious's own classes, with
 * the numbers and messages SQL Server and Babelfish send.
 */
import * as tedious from 'tedious';
import { describe, expect, it } from 'vitest';
import { dropDatabaseStatements, isConcurrentCatalogUpdate, retryConcurrentCatalogUpdate } from '../support/sqlserver.js';

function serverError(number: number, message: string): tedious.RequestError {
  const error = new tedious.RequestError(message, 'EREQUEST');
  error.number = number;
  return error;
}

const modelLocked = () => serverError(1807, "Could not obtain exclusive lock on database 'model'. Retry the operation later.");
const createFailed = () => serverError(1802, 'CREATE DATABASE failed. Some file names listed could not be created. Check related errors.');

describe('a concurrent catalog update', () => {
  it("is SQL Server's 1807 (model not locked), alone or with the 1802 that follows it, and a deadlock on the catalog", () => {
    expect(isConcurrentCatalogUpdate(modelLocked())).toBe(true);
    expect(isConcurrentCatalogUpdate(new AggregateError([modelLocked(), createFailed()]))).toBe(true);
    expect(isConcurrentCatalogUpdate(serverError(1205, 'Transaction (Process ID 61) was deadlocked on lock resources with another process'))).toBe(true);
  });

  it("is Babelfish's 33557097 only with PostgreSQL's 'tuple concurrently updated'", () => {
    expect(isConcurrentCatalogUpdate(serverError(33557097, 'tuple concurrently updated'))).toBe(true);
    expect(isConcurrentCatalogUpdate(serverError(33557097, 'permission denied to create database'))).toBe(false);
  });

  it('is not a database that exists, nor a refused permission', () => {
    expect(isConcurrentCatalogUpdate(serverError(1801, "Database 'ba_t_1' already exists. Choose a different database name."))).toBe(false);
    expect(isConcurrentCatalogUpdate(serverError(262, "CREATE DATABASE permission denied in database 'master'."))).toBe(false);
  });

  it('sends CREATE DATABASE again until it goes through, and nothing else again', async () => {
    let attempts = 0;
    await expect(
      retryConcurrentCatalogUpdate(() => (++attempts < 3 ? Promise.reject(new AggregateError([modelLocked(), createFailed()])) : Promise.resolve('created'))),
    ).resolves.toBe('created');
    expect(attempts).toBe(3);

    attempts = 0;
    const exists = serverError(1801, "Database 'ba_t_1' already exists.");
    await expect(retryConcurrentCatalogUpdate(() => (++attempts, Promise.reject(exists)))).rejects.toBe(exists);
    expect(attempts).toBe(1);

    attempts = 0;
    await expect(retryConcurrentCatalogUpdate(() => (++attempts, Promise.reject(modelLocked())), 4)).rejects.toMatchObject({ number: 1807 });
    expect(attempts).toBe(4);
  });
});

describe('dropping a test database', () => {
  it('on SQL Server brings it online and alone first; on Babelfish, which has no ALTER DATABASE, only drops it', () => {
    expect(dropDatabaseStatements('ba_t_1', { babelfish: false }).map((s) => s.statement)).toEqual([
      'ALTER DATABASE [ba_t_1] SET ONLINE',
      'ALTER DATABASE [ba_t_1] SET SINGLE_USER WITH ROLLBACK IMMEDIATE',
      'DROP DATABASE [ba_t_1]',
    ]);
    expect(dropDatabaseStatements('ba_t_1', { babelfish: true })).toEqual([{ statement: 'DROP DATABASE [ba_t_1]', mayFail: false }]);
  });
});
