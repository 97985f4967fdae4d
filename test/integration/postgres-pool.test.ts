/**
 * A connection lost while it is lent out, between queries, does not crash the process: the
 * next query on it fails instead. Without a listener of its own the client's 'error' was an
 * uncaught exception (seen in the database-restart test).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { createPgPool } from '../../src/postgres-pool.js';
import { cluster, newGatewayDatabase } from '../support/databases.js';
import { until } from '../support/until.js';

it('a lent connection whose server ends it fails its next query and raises nothing', async () => {
  const pool = createPgPool({ connectionString: await newGatewayDatabase(), max: 2 });
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  try {
    const client = await pool.connect();
    await client.query('begin');
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    let ended = false;
    client.once('end', () => (ended = true));
    await cluster().admin(`select pg_terminate_backend(${rows[0]!.pid})`);
    await until(() => ended, 5_000);
    await sleep(50);
    expect(uncaught).toEqual([]);
    await expect(client.query('select 1')).rejects.toThrow();
    client.release(true);
    const { rows: again } = await pool.query<{ one: number }>('select 1 as one');
    expect(again[0]!.one).toBe(1);
  } finally {
    process.off('uncaughtException', onUncaught);
    await pool.end();
  }
});
