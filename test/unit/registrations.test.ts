/**
 * Adding an operation is a schema (with, for a write, the records it marks), a function, a route
 * and a T-SQL scenario (README): each once.
 * A second schema of the same name, a forgotten route or a route to an operation the agent does
 * not know would otherwise only show up as a 404 or a "not_found" job at a branch.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { operations, registry } from '../../src/agent/operations.js';
import { apiRoutes } from '../../src/gateway/routes/index.js';
import type { OperationDef } from '../../src/protocol/operation.js';
import { SCENARIOS } from '../tsql/scenarios/index.js';

const PROTOCOL_DIR = new URL('../../src/protocol/operations/', import.meta.url);
const EXPECTED_DIR = new URL('../tsql/expected/', import.meta.url);

function isOperationDef(value: unknown): value is OperationDef {
  const v = value as Partial<OperationDef> | null;
  return typeof v?.name === 'string' && typeof v.write === 'boolean' && v.input !== undefined && v.output !== undefined;
}

async function protocolDefs(): Promise<OperationDef[]> {
  const files = readdirSync(PROTOCOL_DIR).filter((f) => f.endsWith('.ts'));
  const modules = await Promise.all(files.map((f) => import(new URL(f, PROTOCOL_DIR).href) as Promise<Record<string, unknown>>));
  return modules.flatMap((m) => Object.values(m).filter(isOperationDef));
}

const duplicates = (names: string[]) => names.filter((n, i) => names.indexOf(n) !== i);

describe('operation registrations', () => {
  it('every schema has its own name', async () => {
    const defs = await protocolDefs();
    expect(defs.length).toBeGreaterThan(20);
    expect(duplicates(defs.map((d) => d.name))).toEqual([]);
  });

  it('every schema has exactly one implementation, bound to that very schema', async () => {
    const defs = await protocolDefs();
    expect([...operations.keys()].sort()).toEqual(defs.map((d) => d.name).sort());
    for (const def of defs) expect(operations.get(def.name)?.def, def.name).toBe(def);
  });

  it("every write declares the POS records it changes, for events to tell its changes from a terminal's", async () => {
    const defs = await protocolDefs();
    const writes = defs.filter((d) => d.write);
    expect(writes.length).toBeGreaterThan(5);
    for (const def of defs) expect(typeof def.marks, def.name).toBe(def.write ? 'function' : 'undefined');
    // What a write marks comes from its own input and result, e.g. the account an order created.
    const create = operations.get('orders.create')!.def;
    expect(create.marks?.({}, { folio: 42 })).toEqual([{ kind: 'orden', entity: '42' }]);
  });

  it('an operation registered twice stops the agent instead of shadowing the first', () => {
    const impl = operations.get('products.list')!;
    expect(() => registry([impl, impl])).toThrow('operation products.list is registered twice');
  });

  it('every operation has exactly one route, and every route an operation', async () => {
    const defs = await protocolDefs();
    // The seed's exact POST /temp_ordenes (licenseKey in the body) is a second path to an operation that has its own.
    const seedPaths = apiRoutes.filter((r) => r.licenseKeyIn === 'body');
    expect(seedPaths.map((r) => `${r.method} ${r.url} ${r.op.name}`)).toEqual(['POST /temp_ordenes orders.create']);
    const routed = apiRoutes.filter((r) => r.licenseKeyIn !== 'body').map((r) => r.op.name);
    expect(duplicates(routed)).toEqual([]);
    expect([...routed].sort()).toEqual(defs.map((d) => d.name).sort());
    // A route may show HTTP a view of the schema (printing adds the registry's targets), never another operation.
    for (const route of apiRoutes) expect(route.op.write, `${route.method} ${route.url}`).toBe(operations.get(route.op.name)?.def.write);
    const endpoints = apiRoutes.map((r) => `${r.method} ${r.url}`);
    expect(duplicates(endpoints)).toEqual([]);
  });

  it('every operation has T-SQL scenarios and one expectation file, and no file is orphaned', () => {
    const names = [...operations.keys()].sort();
    expect([...new Set(SCENARIOS.map((s) => s.op))].sort()).toEqual(names);
    const files = readdirSync(EXPECTED_DIR).filter((f) => f.endsWith('.sql'));
    expect(files.map((f) => f.replace(/\.sql$/, '')).sort()).toEqual(names);
  });
});
