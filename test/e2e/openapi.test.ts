/**
 * The served API description tells the truth, so a client generated from it works against the
 * server: it is a valid OpenAPI document, every operation is named, writes declare their
 * Idempotency-Key, errors are the problem documents the server sends, and real answers match the
 * schemas that describe them.
 */
import { randomUUID } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import AjvDraft04 from 'ajv-draft-04';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

interface Operation {
  operationId?: string;
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}

let stack: TestStack;
let doc: { openapi: string; paths: Record<string, Record<string, Operation>> };
const operations: Array<{ method: string; path: string; op: Operation }> = [];

beforeAll(async () => {
  stack = await startTestStack();
  doc = (await stack.api('GET', '/openapi.json', { key: null })).body;
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) operations.push({ method: method.toUpperCase(), path, op });
  }
});
afterAll(async () => {
  await stack?.stop();
});

const WRITES = [
  'PUT /productos/{licenseKey}/{idProducto}',
  'POST /temp_ordenes/{licenseKey}',
  'POST /temp_ordenes',
  'POST /ordenes/{licenseKey}',
  'POST /temp_ordenes/{licenseKey}/{folio}/descuento',
  'POST /temp_ordenes/{licenseKey}/{folio}/descuento_productos',
  'POST /temp_ordenes/{licenseKey}/{folio}/productos',
  'POST /temp_ordenes/{licenseKey}/{folio}/cancelar_productos',
  'POST /temp_ordenes/{licenseKey}/{folio}/imprimir',
  'POST /temp_ordenes/{licenseKey}/{folio}/pagar',
  'POST /temp_ordenes/{licenseKey}/{folio}/reabrir',
  'POST /temp_ordenes/{licenseKey}/{folio}/cancelar',
  'POST /turnos_apertura/{licenseKey}',
  'POST /turnos_cierre/{licenseKey}',
];
/** Gateway-local writes: they take the key too, and answer no job. */
const GATEWAY_WRITES = ['POST /sucursales/actualizaciones'];
const PRINTS = ['POST /print/{licenseKey}/orden', 'POST /print/{licenseKey}/prueba'];
const name = (o: { method: string; path: string }) => `${o.method} ${o.path}`;
const operation = (method: string, path: string) => doc.paths[path]![method.toLowerCase()]!;

it('is a valid OpenAPI document', async () => {
  await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  expect(operations.length).toBeGreaterThanOrEqual(34);
});

it('names every operation, each once', () => {
  const ids = operations.map((o) => o.op.operationId);
  expect(
    ids.filter((id) => typeof id !== 'string' || id === ''),
    'operations without an operationId',
  ).toEqual([]);
  expect(new Set(ids).size).toBe(ids.length);
});

it('declares Idempotency-Key: required on the writes and the rollout, optional on the two prints, absent elsewhere', () => {
  const keyOf = (o: { op: Operation }) => o.op.parameters?.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
  for (const o of operations) {
    const key = keyOf(o);
    if ([...WRITES, ...GATEWAY_WRITES].includes(name(o))) expect(key, name(o)).toMatchObject({ required: true, schema: { type: 'string', maxLength: 255 } });
    else if (PRINTS.includes(name(o))) expect(key?.required, name(o)).toBe(false);
    else expect(key, name(o)).toBeUndefined();
  }
});

it('describes every error as application/problem+json, open to the members problems add', () => {
  for (const o of operations) {
    for (const status of ['4XX', '5XX']) {
      const content = o.op.responses[status]?.content;
      expect(Object.keys(content ?? {}), `${name(o)} ${status}`).toEqual(['application/problem+json']);
      const schema = content!['application/problem+json']!.schema;
      expect(schema.additionalProperties, `${name(o)} ${status}`).not.toBe(false);
      expect(Object.keys(schema.properties as object)).toEqual(
        expect.arrayContaining(['type', 'title', 'status', 'detail', 'code', 'instance', 'jobId', 'errors', 'results']),
      );
      expect(schema.required).toEqual(expect.arrayContaining(['code', 'status']));
    }
  }
});

it('shows the jobId of every write and print', () => {
  for (const id of [...WRITES, ...PRINTS]) {
    const [method, path] = id.split(' ') as [string, string];
    const [status, response] = Object.entries(operation(method, path).responses).find(([s]) => s.startsWith('2'))!;
    const schema = response.content!['application/json']!.schema;
    expect((schema.properties as Record<string, unknown>).jobId, `${id} ${status}`).toMatchObject({ type: 'string' });
    expect(schema.required, id).toContain('jobId');
  }
});

it('types page and pageSize as integers from 1', () => {
  for (const o of operations) {
    for (const p of o.op.parameters?.filter((p) => p.name === 'page' || p.name === 'pageSize') ?? []) {
      expect(p.schema, `${name(o)} ${p.name}`).toMatchObject({ type: 'integer', minimum: 1 });
      expect(p.schema).not.toHaveProperty('anyOf');
    }
  }
  expect(operations.filter((o) => o.op.parameters?.some((p) => p.name === 'page')).length).toBeGreaterThanOrEqual(10);
});

describe('the schemas against the server', () => {
  // OpenAPI 3.0 schemas are JSON Schema draft 4 (boolean exclusiveMinimum) plus `nullable`.
  const ajv = new AjvDraft04.default({ strict: false, allErrors: true });
  const requestSchema = (method: string, path: string) => operation(method, path).requestBody!.content['application/json']!.schema;
  const responseSchema = (method: string, path: string, status: string, type = 'application/json') =>
    operation(method, path).responses[status]!.content![type]!.schema;

  function expectDescribed(res: ApiResponse, schema: Record<string, unknown>): void {
    const valid = ajv.validate(schema, res.body);
    expect(valid, `${res.text}\n${ajv.errorsText()}`).toBe(true);
  }

  it('a printer body is valid as described exactly when the server takes it: widthMm required for thermal printers', async () => {
    const base = { licenseKey: BRANCH, printerIp: '10.0.0.3', displayName: 'Caja' };
    const bodies = [
      { ...base, kind: 'thermal', widthMm: 80 },
      { ...base, kind: 'thermal' },
      { ...base, kind: 'thermal', widthMm: null },
      { ...base, kind: 'label' },
      { ...base, kind: 'label', widthMm: 58 },
    ];
    for (const body of bodies) {
      const described = ajv.validate(requestSchema('POST', '/print/printers'), body);
      const res = await stack.api('POST', '/print/printers', { body });
      expect(res.status, JSON.stringify(body)).toBe(described ? 201 : 400);
      if (described) expectDescribed(res, responseSchema('POST', '/print/printers', '201'));
      else expectDescribed(res, responseSchema('POST', '/print/printers', '4XX', 'application/problem+json'));
    }
  });

  it('answers what it describes: lists, writes and problems', async () => {
    const list = await stack.api('GET', `/productos/${BRANCH}?page=1&pageSize=5`);
    expectDescribed(list, responseSchema('GET', '/productos/{licenseKey}', '200'));
    // Terminals, areas and tables, each as its own kind of record; an open shift without cierre.
    expectDescribed(await stack.api('GET', `/estaciones/${BRANCH}?pageSize=100`), responseSchema('GET', '/estaciones/{licenseKey}', '200'));
    expectDescribed(await stack.api('GET', `/turnos/${BRANCH}`), responseSchema('GET', '/turnos/{licenseKey}', '200'));

    const sale = orderBody({
      serie: 'A',
      idFormaDePago: 'EFE',
      productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }],
    });
    const created = await stack.api('POST', `/ordenes/${BRANCH}`, { body: sale, headers: { 'idempotency-key': randomUUID() } });
    expect(created.status).toBe(201);
    expectDescribed(created, responseSchema('POST', '/ordenes/{licenseKey}', '201'));

    const problems = [
      await stack.api('POST', `/ordenes/${BRANCH}`, { body: { ...sale, idEmpresa: 7 }, headers: { 'idempotency-key': randomUUID() } }),
      await stack.api('POST', `/ordenes/${BRANCH}`, { body: sale }),
      await stack.api('POST', `/ordenes/${BRANCH}`, { body: { ...sale, idFormaDePago: 'NOPE' }, headers: { 'idempotency-key': randomUUID() } }),
      await stack.api('GET', `/productos/${BRANCH}?page=0`),
    ];
    expect(problems.map((p) => p.body.code)).toEqual(['validation_failed', 'idempotency_key_missing', 'payment_method_not_found', 'validation_failed']);
    for (const p of problems) expectDescribed(p, responseSchema('POST', '/ordenes/{licenseKey}', '4XX', 'application/problem+json'));
  });
});
