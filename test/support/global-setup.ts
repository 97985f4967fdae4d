/**
 * One embedded PostgreSQL per test project, with template databases that each test file
 * clones (CREATE DATABASE … TEMPLATE takes milliseconds): the reference schema empty, seeded as
 * demo branch 1 (no forced rules) and as demo branch 2 (forced reason and discount type), and a
 * migrated gateway store.
 */
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/demo/embedded-postgres.js';
import { createPosDatabase } from '../../src/demo/pos-database.js';
import { GatewayStore } from '../../src/gateway/store.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgPort: number;
    /** Which reference schema the templates were built from. */
    posSchema: 'sr11' | 'sr10';
  }
}

export const TEMPLATES = {
  empty: 'tpl_pos_empty',
  branch: 'tpl_pos_branch',
  strictBranch: 'tpl_pos_strict',
  gateway: 'tpl_gateway',
} as const;

export default async function setup(project: TestProject) {
  const posSchema = project.name === 'sr10' ? 'sr10' : 'sr11';
  const schemaFile = posSchema === 'sr10' ? 'softrestaurant10.sql' : 'softrestaurant11.sql';
  const cluster = await startEmbeddedPostgres();
  await Promise.all([
    createPosDatabase(cluster, TEMPLATES.empty, undefined, schemaFile),
    createPosDatabase(cluster, TEMPLATES.branch, { name: 'Sucursal Centro', forceCancelReason: false, forceDiscountType: false }, schemaFile),
    createPosDatabase(cluster, TEMPLATES.strictBranch, { name: 'Sucursal Norte', forceCancelReason: true, forceDiscountType: true }, schemaFile),
    (async () => {
      await cluster.admin(`CREATE DATABASE ${TEMPLATES.gateway}`);
      const store = new GatewayStore(cluster.url(TEMPLATES.gateway));
      await store.migrate();
      await store.close();
    })(),
  ]);
  project.provide('pgPort', cluster.port);
  project.provide('posSchema', posSchema);
  return () => cluster.stop();
}
