/**
 * The API under fire, driven by its own description: fast-check generates requests for every
 * endpoint of /openapi.json, valid ones (with values the branch really has, so writes reach the
 * POS) and hostile ones (NUL bytes, lone surrogates, look-alikes, wrong types, missing fields,
 * bodies that are not UTF-8 JSON, bad keys, another user's branch, racing retries), and sends
 * them to a real gateway, agent, POS database and virtual printer. Whatever was sent:
 * - no 5xx; bodies shaped to stall the parser (100,000 deep, 4 MiB of values) are a 4xx within a second;
 * - every 4xx is problem+json with a code, quotes nothing it was sent, and changed nothing: not the POS, not the gateway's
 *   registry, not a printer;
 * - every 2xx body matches the schema /openapi.json declares for it (generated clients work);
 * - concurrent retries with one Idempotency-Key run once; no key is left answering "in progress".
 * A failure prints fast-check's seed, the request and the failed assertion; FC_SEED=<seed> replays
 * it, FC_RUNS=<n> runs more (or fewer) than 300 requests.
 */
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import fc from 'fast-check';
import pg from 'pg';
import { sql, type CompiledQuery, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileTsql, rowFingerprint } from '../../src/pos/sql-dialect.js';
import { startVirtualPrinter, type VirtualPrinter } from '../../src/printing/virtual-printer.js';
import {
  endpointsOf,
  objectArbitrary,
  planRequest,
  valueArbitrary,
  variationArbitrary,
  type Endpoint,
  type OpenApiDocument,
  type PlannedRequest,
  type Pools,
  type Schema,
  ECHO_MARKER,
  STALLING_BODIES,
} from '../support/openapi-requests.js';
import { LOOPBACK } from '../support/printer-ports.js';
import { API_KEY, BRANCH, OTHER_API_KEY, OTHER_USERS_BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { tsqlProblems } from '../support/tsql-text.js';

const RUNS = Number(process.env.FC_RUNS ?? 300);

let stack: TestStack;
let gatewayDb: pg.Client;
let printers: VirtualPrinter[] = [];
let doc: OpenApiDocument;
let endpoints: Endpoint[];
let pools: Pools;
let posRows: CompiledQuery<{ t: unknown; h: Buffer }>;
const validate = new Ajv({ strict: false, allErrors: false });
// ajv-formats is CommonJS: TypeScript sees its module object, whose `default` is the plugin.
formats.default(validate);

beforeAll(async () => {
  stack = await startTestStack();
  gatewayDb = new pg.Client({ connectionString: stack.gatewayDatabaseUrl });
  await gatewayDb.connect();
  printers = await Promise.all([startVirtualPrinter({ host: LOOPBACK }), startVirtualPrinter({ host: LOOPBACK })]);
  const printerIds: string[] = [];
  for (const [i, printer] of printers.entries()) {
    const kind = i === 0 ? 'thermal' : 'label';
    const res = await stack.api('POST', '/print/printers', {
      body: {
        licenseKey: BRANCH,
        printerIp: LOOPBACK,
        printerPort: printer.port,
        displayName: `Fuzz ${kind}`,
        kind,
        ...(kind === 'thermal' ? { widthMm: 80 } : {}),
      },
    });
    expect(res.status, res.text).toBe(201);
    printerIds.push(res.body.id as string);
  }
  doc = (await stack.api('GET', '/openapi.json')).body as OpenApiDocument;
  endpoints = endpointsOf(doc).filter((e) => !e.path.startsWith('/documentation'));
  pools = await branchPools(printerIds);
  posRows = await posRowsQuery();
}, 120_000);

afterAll(async () => {
  await gatewayDb?.end();
  await Promise.all(printers.map((p) => p.close()));
  await stack?.stop();
});

/**
 * The SQL Server form of the test's own reads of the POS. They must run on a branch's SQL Server
 * 2014 too (the last test checks them), so they are built with Kysely, never written as text.
 */
const posReads = new Set<string>();

function recorded<Q extends { toOperationNode(): RootOperationNode }>(query: Q): Q {
  posReads.add(compileTsql(query.toOperationNode()).sql);
  return query;
}

/** The branch's POS, for reads of tables and columns named at run time. */
const anyPos = () => stack.pos.get(BRANCH)!.db.withTables<Record<string, Record<string, unknown>>>();

/** Values the demo branch has, so that a valid request finds its station, product, account... */
async function branchPools(printerIds: string[]): Promise<Pools> {
  const column = async (table: string, col: string) =>
    (await recorded(anyPos().selectFrom(table).select(sql.ref(col).as('v')).orderBy(col).offset(0).fetch(40)).execute()).map((r) =>
      typeof r.v === 'string' ? r.v.trim() : r.v,
    );
  const [estaciones, empresas, productos, meseros, usuarios, formas, tipos, grupos, temp, cheques, turnos, series] = await Promise.all([
    column('estaciones', 'idestacion'),
    column('empresas', 'idempresa'),
    column('productos', 'idproducto'),
    column('meseros', 'idmesero'),
    column('usuarios', 'usuario'),
    column('formasdepago', 'idformadepago'),
    column('tipodescuento', 'idtipodescuento'),
    column('grupos', 'idgrupo'),
    column('tempcheques', 'folio'),
    column('cheques', 'numcheque'),
    column('turnos', 'idturno'),
    column('folios', 'serie'),
  ]);
  return {
    licenseKey: [BRANCH],
    estacion: estaciones,
    idEmpresa: empresas,
    idProducto: productos,
    idMesero: meseros,
    usuario: usuarios,
    cajero: usuarios,
    idFormaDePago: formas,
    idTipoDescuento: tipos,
    idGrupo: grupos,
    folio: temp.map(Number),
    numCheque: cheques.map(Number),
    idTurno: turnos.map(Number),
    serie: series,
    printerId: printerIds,
    movimiento: [1, 2, 3],
  };
}

/** Columns hashed together: with the table's name and the separators, 91 arguments to concat. */
const COLUMNS_PER_HASH = 45;

/** SQL Server's deprecated types, which CONCAT refuses, read as their (max) successors. */
const CONCAT_AS: Readonly<Record<string, string>> = { text: 'varchar(max)', ntext: 'nvarchar(max)', image: 'varbinary(max)' };

/**
 * One statement that reads every row of every POS table but the agent's own (`ba_`) as a hash
 * of its columns, computed by the server (rowFingerprint, as change detection reads accounts):
 * a hash of each group of columns, then of the groups, so that no call passes 100 arguments.
 * SQL Server 2014 hashes at most 8,000 bytes; the test's widest row, an invoice with its XML,
 * is about 2,400. Built and compiled once: the schema does not change.
 */
async function posRowsQuery(): Promise<CompiledQuery<{ t: unknown; h: Buffer }>> {
  const mssql = stack.pos.get(BRANCH)!.dialect === 'mssql';
  const rows = await recorded(
    anyPos()
      .selectFrom('information_schema.columns')
      .select(['table_name', 'column_name', 'data_type'])
      .where('table_schema', '=', mssql ? 'dbo' : 'public')
      .orderBy('table_name')
      .orderBy('ordinal_position'),
  ).execute();
  const tables = new Map<string, Array<{ name: string; type: string }>>();
  for (const { table_name, column_name, data_type } of rows) {
    const table = String(table_name);
    if (!table.startsWith('ba_')) tables.set(table, [...(tables.get(table) ?? []), { name: String(column_name), type: String(data_type) }]);
  }
  const [first, ...rest] = [...tables].map(([table, columns]) =>
    anyPos()
      .selectFrom(table)
      .select((eb) => {
        const value = ({ name, type }: { name: string; type: string }) => {
          const as = mssql ? CONCAT_AS[type.toLowerCase()] : undefined;
          return as ? eb.cast(eb.ref(name), sql.raw(as)) : eb.ref(name);
        };
        const groups = Array.from({ length: Math.ceil(columns.length / COLUMNS_PER_HASH) }, (_, i) =>
          columns.slice(i * COLUMNS_PER_HASH, (i + 1) * COLUMNS_PER_HASH),
        );
        const hashes = groups.map((group) => rowFingerprint(eb, [sql.lit(table), ...group.map(value)]));
        return [sql.lit(table).as('t'), rowFingerprint(eb, [sql.lit(table), ...hashes]).as('h')];
      }),
  );
  return recorded(rest.reduce((union, next) => union.unionAll(next), first!)).compile();
}

/**
 * Everything a request could change: every row of the POS but the agent's own bookkeeping, the
 * gateway's registry (users, keys, branches, printers) and the bytes each printer received.
 * Idempotency records and the job log are bookkeeping too, and left out.
 */
async function fingerprint(): Promise<string> {
  // A job the agent gave up waiting on (it waits 1 s for the printer to close) lands late: count it before.
  await Promise.all(printers.map((p) => p.idle()));
  const { rows } = await stack.pos.get(BRANCH)!.db.executeQuery(posRows);
  const pos = rows.map((row) => `${String(row.t)}:${row.h.toString('hex')}`).sort();
  const gateway = await gatewayDb.query<{ h: string }>(
    `select md5(${['gw_users', 'gw_api_keys', 'gw_branches', 'gw_printers'].map((t) => `coalesce((select string_agg(md5(x::text), '' order by md5(x::text)) from ${t} x), '')`).join(' || ')}) as h`,
  );
  return `${createHash('sha256').update(pos.join('\n')).digest('hex')}/${gateway.rows[0]!.h}/${printers.map((p) => p.jobs.length).join(',')}`;
}

interface Answer {
  /** From sending the request to reading the whole answer. */
  elapsedMs: number;
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

async function send(req: PlannedRequest): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(stack.url + req.url, { method: req.method, headers: req.headers, body: req.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // XML invoices and error pages are checked by their content type
  }
  return { elapsedMs: performance.now() - started, status: res.status, headers: res.headers, text, body };
}

/** OpenAPI 3.0's dialect of JSON Schema, as draft-07 (what Ajv reads). */
function toJsonSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toJsonSchema);
  if (s === null || typeof s !== 'object') return s;
  const { nullable, exclusiveMinimum, exclusiveMaximum, minimum, maximum, ...rest } = s as Schema & Record<string, unknown>;
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(rest).map(([k, v]) => [
      k,
      k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, ps]) => [p, toJsonSchema(ps)])) : toJsonSchema(v),
    ]),
  );
  if (minimum !== undefined) out[exclusiveMinimum === true ? 'exclusiveMinimum' : 'minimum'] = minimum;
  if (maximum !== undefined) out[exclusiveMaximum === true ? 'exclusiveMaximum' : 'maximum'] = maximum;
  if (typeof exclusiveMinimum === 'number') out.exclusiveMinimum = exclusiveMinimum;
  if (typeof exclusiveMaximum === 'number') out.exclusiveMaximum = exclusiveMaximum;
  return nullable ? { anyOf: [out, { type: 'null' }] } : out;
}

const validators = new Map<string, ReturnType<typeof validate.compile> | null>();
function responseValidator(endpoint: Endpoint, status: number) {
  const id = `${endpoint.method} ${endpoint.path} ${status}`;
  if (!validators.has(id)) {
    const schema = endpoint.responses[String(status)]?.content?.['application/json']?.schema;
    validators.set(id, schema ? validate.compile(toJsonSchema(schema) as object) : null);
  }
  return validators.get(id)!;
}

/** What every answer must be, whatever was asked. */
function checkAnswer(endpoint: Endpoint, req: PlannedRequest, answer: Answer): void {
  const context = `${req.label}\n→ ${answer.status} ${answer.text.slice(0, 500)}`;
  expect(answer.status, context).toBeLessThan(500);
  if (answer.status >= 400) {
    expect(answer.headers.get('content-type'), context).toMatch(/^application\/problem\+json/);
    const problem = answer.body as { status?: unknown; code?: unknown; title?: unknown };
    expect(problem.status, context).toBe(answer.status);
    expect(typeof problem.code, context).toBe('string');
    expect(typeof problem.title, context).toBe('string');
    // What was sent is named by its field, never repeated (the path the request took aside).
    const { instance: _instance, ...rest } = problem as Record<string, unknown>;
    expect(JSON.stringify(rest), context).not.toMatch(new RegExp(`${ECHO_MARKER}|pg_sleep`));
    return;
  }
  const check = responseValidator(endpoint, answer.status);
  if (check && answer.headers.get('content-type')?.startsWith('application/json')) {
    expect(check(answer.body) ? [] : check.errors, context).toEqual([]);
  }
}

const requestArbitrary = () =>
  fc.constantFrom(...endpoints).chain((endpoint) => {
    const pathParams = endpoint.params.filter((p) => p.in === 'path');
    const queryParams = endpoint.params.filter((p) => p.in === 'query');
    const asObject = (params: typeof pathParams): Schema => ({
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
      required: params.filter((p) => p.required || p.in === 'path').map((p) => p.name),
    });
    return fc.record({
      endpoint: fc.constant(endpoint),
      path: objectArbitrary(asObject(pathParams), endpoint.path.startsWith('/print/printers/') ? { ...pools, printerId: [] } : pools),
      query: objectArbitrary(asObject(queryParams), pools),
      body: endpoint.body ? valueArbitrary(endpoint.body, 'body', pools) : fc.constant(undefined),
      variation: variationArbitrary,
      racers: fc.oneof({ arbitrary: fc.constant(1), weight: 6 }, { arbitrary: fc.constant(4), weight: 1 }),
    });
  });

describe('the API, driven by /openapi.json', () => {
  const usedKeys: Array<{ endpoint: Endpoint; req: PlannedRequest }> = [];
  const succeeded = new Map<'reads' | 'writes', number>();

  it(`answers ${RUNS} valid and hostile requests without a 5xx, and no 4xx changes anything`, async () => {
    let before = await fingerprint();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(requestArbitrary(), async ({ endpoint, path, query, body, variation, racers }) => {
        const req = planRequest(
          endpoint,
          { path, query, body },
          variation,
          { apiKey: API_KEY, otherUsersKey: OTHER_API_KEY, branch: BRANCH, otherUsersBranch: OTHER_USERS_BRANCH },
          `${Date.now()}-${n++}`,
        );
        const raced = req.idempotencyKey ? racers : 1;
        const answers = await Promise.all(Array.from({ length: raced }, () => send(req)));
        for (const answer of answers) checkAnswer(endpoint, req, answer);
        if (variation.kind === 'raw-body' && STALLING_BODIES.has(variation.body) && req.body !== undefined) {
          // Refused before it is parsed (or authenticated, when the key is bad): never a long wait.
          for (const answer of answers) expect(answer.status, req.label).toBeGreaterThanOrEqual(400);
          for (const answer of answers) expect(answer.elapsedMs, req.label).toBeLessThan(1_000);
        }
        const kind = endpoint.method === 'GET' ? 'reads' : 'writes';
        if (answers.some((a) => a.status < 300)) succeeded.set(kind, (succeeded.get(kind) ?? 0) + 1);
        if (req.idempotencyKey) usedKeys.push({ endpoint, req });

        if (raced > 1) {
          // One Idempotency-Key, several at once: one runs; the others wait for it, say it is in progress, or replay it.
          const ran = answers.filter((a) => a.status < 300 && a.headers.get('idempotent-replayed') !== 'true');
          expect(ran.length, req.label).toBeLessThanOrEqual(1);
          const jobIds = new Set(answers.filter((a) => a.status < 300).map((a) => (a.body as { jobId?: string }).jobId));
          expect(jobIds.size, req.label).toBeLessThanOrEqual(1);
        }

        const after = await fingerprint();
        if (answers.every((a) => a.status >= 400)) expect(after, `a ${answers.map((a) => a.status).join('/')} changed data: ${req.label}`).toBe(before);
        before = after;
      }),
      // The report names the assertion that failed, not only the request that made it fail.
      { numRuns: RUNS, seed: process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined, endOnFailure: true, includeErrorInReport: true },
    );
    // Valid requests got through: the property was not only checked on refusals.
    expect(succeeded.get('reads')).toBeGreaterThan(0);
    expect(succeeded.get('writes')).toBeGreaterThan(0);
  }, 600_000);

  it('leaves no Idempotency-Key answering "in progress" once its request has been answered', async () => {
    expect(usedKeys.length).toBeGreaterThan(0);
    for (const { endpoint, req } of usedKeys) {
      const again = await send(req);
      checkAnswer(endpoint, req, again);
      expect((again.body as { code?: string }).code, req.label).not.toBe('idempotency_in_progress');
    }
  }, 300_000);

  it("reads the POS with T-SQL a branch's SQL Server 2014 runs", () => {
    const statements = [...posReads];
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) expect(tsqlProblems(statement), statement).toEqual([]);
  });
});
