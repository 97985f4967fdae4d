/**
 * The agent's migrations only ever add `ba_` tables and alter nothing of Soft Restaurant's
 * (docs/install.md, docs/architecture.md, docs/operations.md "Events": no triggers). On a
 * fresh POS database (SR's reference schema, no agent table yet) `branch-agent migrate` runs
 * them all; everything the catalogs say about SR's tables (columns and their types, indexes,
 * constraints, triggers) is the same afterwards, every new table's name starts with `ba_`, and
 * no trigger exists anywhere, on SR's tables or the agent's. PostgreSQL only (the sr11 project).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, expect, inject, it } from 'vitest';
import { migrateAgentTables } from '../../src/agent/migrate.js';
import { posDatabase } from '../../src/config/schema.js';
import { migrationsDir } from '../../src/sql-migrations.js';
import { installReferenceSchema } from '../../src/pos/reference-schema.js';
import type { PosDb } from '../../src/pos/schema.js';
import { cluster, openPosDb } from '../support/databases.js';
import { schemaFileOf } from '../support/templates.js';

const work = mkdtempSync(path.join(tmpdir(), 'branch-agent-migrations-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const USER_SCHEMAS = sql`not in ('pg_catalog', 'information_schema', 'pg_toast')`;

/** What the catalogs say of the database's tables and views, each line tagged with the table it belongs to. */
async function catalog(db: PosDb): Promise<{ tables: string[]; triggers: string[]; facts: Array<{ table: string; fact: string }> }> {
  const tables = await sql<{ name: string; kind: string }>`
    select table_schema || '.' || table_name as name, table_type as kind from information_schema.tables
    where table_schema ${USER_SCHEMAS} order by 1`.execute(db);
  const columns = await sql<{ table: string; fact: string }>`
    select table_schema || '.' || table_name as table,
      concat_ws(' ', 'column', ordinal_position, column_name, data_type, udt_name, character_maximum_length, numeric_precision, numeric_scale,
        datetime_precision, collation_name, 'nullable=' || is_nullable, 'default=' || column_default, 'identity=' || is_identity, identity_generation) as fact
    from information_schema.columns where table_schema ${USER_SCHEMAS}`.execute(db);
  const indexes = await sql<{ table: string; fact: string }>`
    select schemaname || '.' || tablename as table, 'index ' || indexdef as fact from pg_indexes where schemaname ${USER_SCHEMAS}`.execute(db);
  const constraints = await sql<{ table: string; fact: string }>`
    select n.nspname || '.' || c.relname as table, 'constraint ' || k.conname || ' ' || pg_get_constraintdef(k.oid) as fact
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname ${USER_SCHEMAS}`.execute(db);
  const triggers = await sql<{ table: string; fact: string }>`
    select n.nspname || '.' || c.relname as table, 'trigger ' || pg_get_triggerdef(t.oid) as fact
    from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
    where not t.tgisinternal`.execute(db);
  const eventTriggers = await sql<{ name: string }>`select evtname as name from pg_event_trigger`.execute(db);
  return {
    tables: tables.rows.map((t) => `${t.name} ${t.kind}`),
    triggers: [...triggers.rows.map((t) => `${t.table}: ${t.fact}`), ...eventTriggers.rows.map((t) => `event trigger ${t.name}`)],
    facts: [...columns.rows, ...indexes.rows, ...constraints.rows, ...triggers.rows],
  };
}

const isAgents = (table: string) => table.split('.').at(-1)!.startsWith('ba_');
/** SR's tables as the catalogs describe them, sorted. */
const srSchema = (facts: Array<{ table: string; fact: string }>) =>
  facts
    .filter((f) => !isAgents(f.table))
    .map((f) => `${f.table}: ${f.fact}`)
    .sort();

it('adds only ba_ tables, changes nothing of SR’s tables and adds no trigger', async () => {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await cluster().admin(`CREATE DATABASE ${name}`);
  const database = posDatabase({ dialect: 'postgres', url: cluster().url(name) });
  const pos = await openPosDb(database);
  try {
    await installReferenceSchema(pos.db, 'postgres', schemaFileOf(inject('posSchema')));
    const before = await catalog(pos.db);
    expect(before.tables.filter(isAgents), 'a fresh POS database has no agent table').toEqual([]);
    expect(before.facts.length).toBeGreaterThan(100);

    const config = path.join(work, 'config.json');
    writeFileSync(config, JSON.stringify({ agent: { licenseKey: 'TEST000000000001', gatewayUrl: 'http://127.0.0.1:9', token: 'agt_test', database } }));
    const migrations = readdirSync(migrationsDir('postgres', 'agent')).filter((f) => /^\d{3}_.*\.sql$/.test(f));
    const { applied } = await migrateAgentTables(config, {});
    // 000_schema_version.sql makes the table that records the others, outside the record.
    expect(applied).toEqual(migrations.filter((f) => !f.startsWith('000_')).sort());

    const after = await catalog(pos.db);
    const added = after.tables.filter((t) => !before.tables.includes(t));
    expect(added.length).toBeGreaterThanOrEqual(5);
    for (const table of added) expect(table).toMatch(/^public\.ba_\w+ BASE TABLE$/);
    expect(after.tables.filter((t) => !added.includes(t))).toEqual(before.tables);
    expect(srSchema(after.facts)).toEqual(srSchema(before.facts));
    expect(after.triggers).toEqual([]);
  } finally {
    await pos.close();
  }
});
