/**
 * Faults at the commit of the agent's writes, made with the POS database's own parts: a trigger
 * on the agent's idempotency record, whose result is the last thing every write with an
 * Idempotency-Key writes before it commits (inserted with it, or filled in by an update). The trap fails the write there, or makes it wait at
 * a gate: a row that whoever takes it (`takeGate`) keeps locked until their transaction ends. It counts the writes that
 * reached it in a sequence, which a rollback does not undo, and keeps the result each write
 * recorded in a table, which commits or rolls back with the write.
 */
import { sql } from 'kysely';
import { dialectOf } from '../../src/pos/sql-dialect.js';
import type { PosDb } from '../../src/pos/schema.js';
import { inTerminalTransaction } from './databases.js';

export interface CommitTrap {
  /** How many writes reached the trap, the ones rolled back included. */
  reached(): Promise<number>;
  /** The results recorded by the trapped writes that committed, oldest first. */
  recorded(): Promise<unknown[]>;
  /** Opens the gate a holding trap took. */
  release(): Promise<void>;
  /** Opens the gate and takes the trap out of the database. */
  remove(): Promise<void>;
}

const OBJECTS = ['test_trap_gate', 'test_trap_recorded'];

function statements(postgres: boolean, op: string, fail: boolean): string[] {
  const quoted = `'${op.replace(/'/g, "''")}'`;
  if (postgres) {
    return [
      'CREATE TABLE test_trap_gate (id int PRIMARY KEY, n int NOT NULL)',
      'INSERT INTO test_trap_gate VALUES (1, 0)',
      'CREATE TABLE test_trap_recorded (id serial PRIMARY KEY, result text NOT NULL)',
      'CREATE SEQUENCE test_trap_reached',
      `CREATE FUNCTION test_trap() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.op = ${quoted} AND NEW.result IS NOT NULL AND NEW.result <> '' THEN
           PERFORM nextval('test_trap_reached');
           UPDATE test_trap_gate SET n = n + 1 WHERE id = 1;
           INSERT INTO test_trap_recorded (result) VALUES (NEW.result);
           ${fail ? "RAISE EXCEPTION 'the write was refused at its commit';" : ''}
         END IF;
         RETURN NEW;
       END $$`,
      'CREATE TRIGGER test_trap AFTER INSERT OR UPDATE ON ba_idempotency FOR EACH ROW EXECUTE FUNCTION test_trap()',
    ];
  }
  return [
    'CREATE TABLE test_trap_gate (id int PRIMARY KEY, n int NOT NULL)',
    'INSERT INTO test_trap_gate VALUES (1, 0)',
    'CREATE TABLE test_trap_recorded (id int IDENTITY PRIMARY KEY, result nvarchar(max) NOT NULL)',
    'CREATE SEQUENCE test_trap_reached AS int START WITH 1',
    `CREATE TRIGGER test_trap ON ba_idempotency AFTER INSERT, UPDATE AS
     BEGIN
       SET NOCOUNT ON;
       IF EXISTS (SELECT 1 FROM inserted WHERE op = ${quoted} AND result IS NOT NULL AND result <> '')
       BEGIN
         DECLARE @n int = NEXT VALUE FOR test_trap_reached;
         UPDATE test_trap_gate SET n = n + 1 WHERE id = 1;
         INSERT INTO test_trap_recorded (result) SELECT result FROM inserted WHERE op = ${quoted} AND result IS NOT NULL AND result <> '';
         ${fail ? "THROW 50000, 'the write was refused at its commit', 1;" : ''}
       END
     END`,
  ];
}

async function removeTrap(db: PosDb): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  await sql.raw(postgres ? 'DROP TRIGGER IF EXISTS test_trap ON ba_idempotency' : 'DROP TRIGGER IF EXISTS test_trap').execute(db);
  if (postgres) await sql.raw('DROP FUNCTION IF EXISTS test_trap()').execute(db);
  await sql.raw('DROP SEQUENCE IF EXISTS test_trap_reached').execute(db);
  for (const table of OBJECTS) await sql.raw(`DROP TABLE IF EXISTS ${table}`).execute(db);
}

/** Takes the gate in `trx`: trapped writes wait until `trx` ends. */
export async function takeGate(trx: PosDb): Promise<void> {
  await sql`UPDATE test_trap_gate SET n = n + 1 WHERE id = 1`.execute(trx);
}

/**
 * Traps the commit of every write of `op` in the database `db` reaches: `fail` refuses it,
 * `wait` makes it wait at the gate, and `hold` takes the gate until `release`.
 */
export async function trapCommits(db: PosDb, op: string, action: 'fail' | 'wait' | 'hold'): Promise<CommitTrap> {
  const postgres = dialectOf(db) === 'postgres';
  await removeTrap(db);
  for (const statement of statements(postgres, op, action === 'fail')) await sql.raw(statement).execute(db);
  // The gate is held in a terminal's transaction that ends, rolled back, once it is released.
  let release = async (): Promise<void> => undefined;
  if (action === 'hold') {
    let open!: () => void;
    const released = new Promise<void>((resolve) => (open = resolve));
    let taken!: () => void;
    const gateTaken = new Promise<void>((resolve) => (taken = resolve));
    const holding = inTerminalTransaction(db, async (gate) => {
      await takeGate(gate);
      taken();
      await released;
    });
    await Promise.race([gateTaken, holding]);
    release = async () => {
      open();
      await holding;
    };
  }
  return {
    async reached() {
      const { rows } = await sql<{ n: number | string }>`${sql.raw(
        postgres
          ? 'SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM test_trap_reached'
          : "SELECT COALESCE(CAST(last_used_value AS int), 0) AS n FROM sys.sequences WHERE name = 'test_trap_reached'",
      )}`.execute(db);
      return Number(rows[0]!.n);
    },
    async recorded() {
      const { rows } = await sql<{ result: string }>`SELECT result FROM test_trap_recorded ORDER BY id`.execute(db);
      return rows.map((r) => JSON.parse(r.result) as unknown);
    },
    release,
    async remove() {
      await release();
      await removeTrap(db);
    },
  };
}
