import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { clusterAt } from '../../src/demo/embedded-postgres.js';
import { createPosDb, type PosConnection } from '../../src/pos/db.js';

export { TEMPLATES } from './global-setup.js';

export const cluster = () => clusterAt(inject('pgPort'));

/** A fresh database cloned from one of the global setup's templates; returns its URL. */
export async function cloneDatabase(template: string): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const c = cluster();
  for (let attempt = 0; ; attempt++) {
    try {
      await c.admin(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      return c.url(name);
    } catch (error) {
      // Two files cloning the same template at once: PostgreSQL says it is "being accessed".
      if (attempt >= 20 || !/being accessed/.test(String(error))) throw error;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }
}

/** A direct connection to a POS database, for asserting what the agent wrote. */
export function openPosDb(url: string): PosConnection {
  return createPosDb({ dialect: 'postgres', url, poolSize: 4 });
}
