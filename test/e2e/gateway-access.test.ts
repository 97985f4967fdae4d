/**
 * The gateway around every request, seen through a catalogue read: authentication and branch
 * scoping, an agent that goes away and comes back, and the endpoints that need no key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, BRANCH, OTHER_API_KEY, OTHER_USERS_BRANCH, startTestStack, STRICT_BRANCH, type TestStack } from '../support/stack.js';
import { until } from '../support/until.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

describe('authentication and scoping', () => {
  it('401 without a key and with an unknown key', async () => {
    for (const key of [null, 'nope']) {
      const res = await stack.api('GET', `/productos/${BRANCH}`, { key });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'unauthorized', status: 401, title: 'Unauthorized' });
      expect(res.body.type).toMatch(/\/problems\/unauthorized$/);
    }
  });

  it("403 for another user's branch and for an unregistered one", async () => {
    const other = await stack.api('GET', `/productos/${OTHER_USERS_BRANCH}`);
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('branch_forbidden');
    const unknown = await stack.api('GET', `/productos/ZZZZ000000000009`);
    expect(unknown.status).toBe(403);
    const theirs = await stack.api('GET', `/productos/${OTHER_USERS_BRANCH}`, { key: OTHER_API_KEY });
    expect(theirs.status).toBe(200);
    const mine = await stack.api('GET', `/productos/${BRANCH}`, { key: OTHER_API_KEY });
    expect(mine.status).toBe(403);
  });

  it.each(['SHORT', 'TEST00000000000!', 'TEST0000000000012'])('400 for the malformed licenseKey %s', async (licenseKey) => {
    const res = await stack.api('GET', `/productos/${encodeURIComponent(licenseKey)}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors[0].path).toBe('params.licenseKey');
  });

  it('401 comes before validation and scoping', async () => {
    const res = await stack.api('GET', `/productos/bad`, { key: null });
    expect(res.status).toBe(401);
  });
});

describe('agent availability', () => {
  it('503 agent_offline while the branch agent is down, 200 once it is back', async () => {
    await stack.agents.get(STRICT_BRANCH)!.stop();
    const down = await stack.api('GET', `/productos/${STRICT_BRANCH}`);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: 'agent_offline', status: 503 });
    await stack.startAgent(STRICT_BRANCH);
    await until(() => stack.gateway.hub.agentFor(STRICT_BRANCH) !== undefined);
    const up = await stack.api('GET', `/productos/${STRICT_BRANCH}?pageSize=1`);
    expect(up.status).toBe(200);
  });

  it('agents reconnect by themselves after the gateway restarts', async () => {
    await stack.restartGateway();
    await until(() => [BRANCH, STRICT_BRANCH, OTHER_USERS_BRANCH].every((k) => stack.gateway.hub.agentFor(k)));
    const res = await stack.api('GET', `/estaciones/${BRANCH}`);
    expect(res.status).toBe(200);
    // The demo's three terminals, three areas and eight tables.
    expect(res.body.totalResults).toBe(14);
  });
});

describe('service endpoints', () => {
  it('serves health, readiness and an OpenAPI description without a key', async () => {
    expect((await stack.api('GET', '/healthz', { key: null })).body.status).toBe('ok');
    const ready = await stack.api('GET', '/readyz', { key: null });
    expect(ready.status).toBe(200);
    const spec = await stack.api('GET', '/openapi.json', { key: null });
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toMatch(/^3\./);
    for (const path of [
      '/productos/{licenseKey}',
      '/grupos/{licenseKey}',
      '/estaciones/{licenseKey}',
      '/meseros/{licenseKey}',
      '/empresas/{licenseKey}',
      '/formas_pago/{licenseKey}',
      '/tipos_descuento/{licenseKey}',
    ]) {
      expect(spec.body.paths[path]?.get, path).toBeDefined();
    }
    const params = spec.body.paths['/productos/{licenseKey}'].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(expect.arrayContaining(['licenseKey', 'page', 'pageSize', 'search', 'idGrupo', 'clasificacion', 'visibleMenu']));
    const docs = await stack.api('GET', '/docs/', { key: null });
    expect(docs.status).toBe(200);
    expect(docs.text).toMatch(/swagger/i);
  });

  it('unknown paths are 404 problems', async () => {
    const res = await stack.api('GET', '/nope', { key: API_KEY });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});
