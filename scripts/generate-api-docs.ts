/**
 * Rewrites the route tables of docs/api.md from the /openapi.json of a gateway started here on a
 * throw-away embedded PostgreSQL. Run after adding or changing a route:
 *   npx tsx scripts/generate-api-docs.ts
 * test/integration/api-docs.test.ts fails while the committed page differs from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startEmbeddedPostgres } from '../src/embedded-postgres/cluster.js';
import { GatewayStore } from '../src/gateway/store.js';
import { renderRoutes, servedApiDocument, spliceRoutes } from './api-reference.js';

const PAGE = fileURLToPath(new URL('../docs/api.md', import.meta.url));

const postgres = await startEmbeddedPostgres();
try {
  await postgres.admin('CREATE DATABASE gateway');
  const store = new GatewayStore(postgres.url('gateway'));
  try {
    await store.migrate();
    const doc = await servedApiDocument(store);
    writeFileSync(PAGE, spliceRoutes(readFileSync(PAGE, 'utf8'), renderRoutes(doc)));
    console.log('wrote docs/api.md');
  } finally {
    await store.close();
  }
} finally {
  await postgres.stop();
}
