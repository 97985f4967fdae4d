/** Creates a branch POS database on an embedded cluster: reference schema, agent tables, demo data. */
import pino from 'pino';
import { readInstalledSchema } from '../pos/columns.js';
import { createPosDb } from '../pos/db.js';
import { agentMigrationsDir, runMigrations } from '../pos/migrations.js';
import { installReferenceSchema } from '../pos/reference-schema.js';
import { POS_TABLES } from '../pos/runtime.js';
import type { EmbeddedCluster } from './embedded-postgres.js';
import { seedBranch, type BranchSeed } from './seed.js';

export async function createPosDatabase(cluster: Pick<EmbeddedCluster, 'admin' | 'url'>, name: string, seed?: BranchSeed, schemaFile?: string): Promise<string> {
  await cluster.admin(`CREATE DATABASE "${name}"`);
  const url = cluster.url(name);
  const { db, close } = createPosDb({ dialect: 'postgres', url, poolSize: 2 });
  try {
    await installReferenceSchema(db, 'postgres', schemaFile);
    await runMigrations(db, agentMigrationsDir('postgres'), 'postgres', 'ba_schema_version');
    if (seed) {
      const schema = await readInstalledSchema(db, 'postgres', POS_TABLES, pino({ level: 'silent' }));
      await seedBranch(db, schema, seed);
    }
  } finally {
    await close();
  }
  return url;
}
