/** Creates a branch POS database: reference schema, agent tables, demo data. */
import pino from 'pino';
import { createPosDb, type PosDbConfig } from '../pos/db.js';
import { migrationsDir, runMigrations } from '../sql-migrations.js';
import { installReferenceSchema } from '../pos/reference-schema.js';
import { readPosSchema } from '../pos/runtime.js';
import type { EmbeddedCluster } from '../embedded-postgres/cluster.js';
import { seedBranch, type BranchSeed } from './seed.js';
import { posDatabase } from '../config/schema.js';

/** Fills an empty database (PostgreSQL or SQL Server) the way a branch's would look. */
export async function installPosDatabase(config: PosDbConfig, seed?: BranchSeed, schemaFile?: string): Promise<void> {
  const { db, dialect, close } = await createPosDb({ ...config, poolSize: 2 });
  try {
    await installReferenceSchema(db, dialect, schemaFile);
    await runMigrations(db, migrationsDir(dialect, 'agent'), dialect, 'ba_schema_version');
    if (seed) {
      const schema = await readPosSchema(db, dialect, pino({ level: 'silent' }));
      await seedBranch(db, schema, seed);
    }
  } finally {
    await close();
  }
}

/** A new database on an embedded PostgreSQL cluster, filled by `installPosDatabase`; returns its URL. */
export async function createPosDatabase(
  cluster: Pick<EmbeddedCluster, 'admin' | 'url'>,
  name: string,
  seed?: BranchSeed,
  schemaFile?: string,
): Promise<string> {
  await cluster.admin(`CREATE DATABASE "${name}"`);
  const url = cluster.url(name);
  await installPosDatabase(posDatabase({ dialect: 'postgres', url }), seed, schemaFile);
  return url;
}
