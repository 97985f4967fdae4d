/**
 * A pg pool whose lost connections never crash the process. pg-pool listens for a client's
 * 'error' only while the client is idle and drops that listener when it lends the client out;
 * a connection that breaks while lent but between queries (Kysely holding it for a
 * transaction while the database restarts) then emitted an 'error' nobody heard, an uncaught
 * exception. Every client gets a listener of its own: the failure still reaches whoever uses
 * the client, as the error of its next query.
 */
import pg from 'pg';

export function createPgPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
