/**
 * docs/api.md tells what the gateway does: its route tables are what a running gateway's
 * /openapi.json generates (scripts/generate-api-docs.ts), its table of error codes is the
 * code's own (src/protocol/errors.ts), each code with its status, and each problem's `type`
 * names a page the gateway serves.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { renderRoutes, servedApiDocument, spliceRoutes, type ApiDocument } from '../../scripts/api-reference.js';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { ERROR_STATUS, ERROR_TITLES, type ErrorCode } from '../../src/protocol/errors.js';
import { newGatewayDatabase } from '../support/databases.js';

const PAGE = new URL('../../docs/api.md', import.meta.url);
const page = readFileSync(PAGE, 'utf8');
let store: GatewayStore;
let doc: ApiDocument;
let gateway: Gateway | undefined;

beforeAll(async () => {
  store = new GatewayStore(await newGatewayDatabase());
  doc = await servedApiDocument(store);
});
afterAll(async () => {
  await gateway?.app.close();
  await store?.close();
});

it('has the route tables /openapi.json generates (run `npx tsx scripts/generate-api-docs.ts` after changing a route)', () => {
  expect(page).toBe(spliceRoutes(page, renderRoutes(doc)));
  const routes = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `\`${m.toUpperCase()} ${path}\``));
  expect(routes.length).toBeGreaterThanOrEqual(34);
  for (const route of routes) expect(page, route).toContain(route);
});

it('lists every error code the API sends, each with its status, and no other', () => {
  const section = page.slice(page.indexOf('### Error codes'), page.indexOf('## Lists and paging'));
  const listed: Record<string, number> = {};
  for (const [, status, codes] of section.matchAll(/^\| (\d{3}) \| ([^|]+) \|/gm)) {
    for (const [, code] of codes!.matchAll(/`([a-z_]+)`/g)) {
      expect(listed[code!], `${code} listed twice`).toBeUndefined();
      listed[code!] = Number(status);
    }
  }
  expect(listed).toEqual(ERROR_STATUS);
});

it('answers GET /problems/{code} with the code, its status and title, and 404 for any other', async () => {
  gateway = await buildGateway({ store, log: pino({ level: 'silent' }), webhookKey: randomBytes(32) });
  for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
    const res = await gateway.app.inject({ method: 'GET', url: `/problems/${code}` });
    expect(res.statusCode, code).toBe(200);
    expect(res.json()).toEqual({ code, status: ERROR_STATUS[code], title: ERROR_TITLES[code] });
  }
  const unknown = await gateway.app.inject({ method: 'GET', url: '/problems/no_such_code' });
  expect(unknown.statusCode).toBe(404);
  expect(unknown.json()).toMatchObject({ code: 'not_found', status: 404 });
});
