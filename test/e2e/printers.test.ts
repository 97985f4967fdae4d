/** The printer registry through the whole gateway: CRUD, validation and scoping to the key's user. */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, BRANCH, OTHER_API_KEY, OTHER_USERS_BRANCH, startTestStack, STRICT_BRANCH, type TestStack } from '../support/stack.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MISSING_ID = '6f9619ff-8b86-4011-b42d-00c04fc964ff';

const thermal = { licenseKey: BRANCH, printerIp: '192.168.1.50', displayName: 'Cocina caliente', kind: 'thermal', widthMm: 80 };

async function register(body: Record<string, unknown>, key = API_KEY) {
  const res = await stack.api('POST', '/print/printers', { body, key });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string } & Record<string, unknown>;
}

function fieldErrors(body: { errors?: Array<{ path: string }> }): string[] {
  return (body.errors ?? []).map((e) => e.path);
}

describe('POST /print/printers', () => {
  it('registers a thermal printer and answers the whole record with its defaults', async () => {
    const before = Date.now();
    const res = await stack.api('POST', '/print/printers', { body: { ...thermal, source: 'softrestaurant', sourceId: 'IMP01' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const { id, createdAt, updatedAt, ...rest } = res.body;
    expect(id).toMatch(UUID);
    expect(rest).toEqual({
      workerId: `agent-${BRANCH}`,
      licenseKey: BRANCH,
      printerIp: '192.168.1.50',
      printerPort: 9100,
      displayName: 'Cocina caliente',
      kind: 'thermal',
      widthMm: 80,
      source: 'softrestaurant',
      sourceId: 'IMP01',
      labelWidthMm: 50,
      labelHeightMm: 25,
      labelGapMm: 2,
      labelDpi: 203,
      labelDensity: 8,
      labelSpeed: 4,
    });
    expect(Date.parse(createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(updatedAt).toBe(createdAt);
  });

  it('registers a label printer with its own label settings and no paper width', async () => {
    const res = await stack.api('POST', '/print/printers', {
      body: {
        licenseKey: BRANCH,
        printerIp: 'etiquetas-barra.local',
        printerPort: 9101,
        displayName: 'Etiquetas barra',
        kind: 'label',
        labelWidthMm: 40.5,
        labelHeightMm: 30,
        labelDpi: 300,
        labelSpeed: 3,
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      kind: 'label',
      widthMm: null,
      printerIp: 'etiquetas-barra.local',
      printerPort: 9101,
      labelWidthMm: 40.5,
      labelHeightMm: 30,
      labelGapMm: 2,
      labelDpi: 300,
      labelDensity: 8,
      labelSpeed: 3,
      source: null,
      sourceId: null,
    });
  });

  it('accepts IPv6 addresses and host names', async () => {
    for (const printerIp of ['::1', 'fd00::1', 'impresora-cocina', 'printer.branch.example']) {
      const res = await stack.api('POST', '/print/printers', { body: { ...thermal, printerIp } });
      expect(res.status, printerIp).toBe(201);
      expect(res.body.printerIp).toBe(printerIp);
    }
  });

  it('takes the widths thermal paper comes in, 48 to 112 mm (seed: "typically 58 or 80")', async () => {
    for (const widthMm of [48, 57, 58, 76, 80, 82, 112]) {
      const printer = await register({ ...thermal, displayName: `Papel ${widthMm}`, widthMm });
      expect(printer.widthMm).toBe(widthMm);
      expect((await stack.api('GET', `/print/printers/${printer.id}`)).body.widthMm).toBe(widthMm);
    }
  });

  it('answers a thermal printer with the label fields at their defaults, whatever was sent (seed)', async () => {
    const sent = { labelWidthMm: 80, labelHeightMm: 40, labelGapMm: 3, labelDpi: 300, labelDensity: 12, labelSpeed: 6 };
    const printer = await register({ ...thermal, displayName: 'Con etiqueta', ...sent });
    const defaults = { labelWidthMm: 50, labelHeightMm: 25, labelGapMm: 2, labelDpi: 203, labelDensity: 8, labelSpeed: 4 };
    expect(printer).toMatchObject(defaults);
    const changed = await stack.api('PATCH', `/print/printers/${printer.id}`, { body: sent });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject(defaults);
    // A label printer keeps its own; turned thermal, it answers the defaults, and they stay when it turns back.
    const label = await register({ licenseKey: BRANCH, printerIp: '10.0.0.8', displayName: 'Etiquetas propias', kind: 'label', ...sent });
    expect(label).toMatchObject(sent);
    const nowThermal = await stack.api('PATCH', `/print/printers/${label.id}`, { body: { kind: 'thermal', widthMm: 58 } });
    expect(nowThermal.body).toMatchObject({ kind: 'thermal', ...defaults });
    const labelAgain = await stack.api('PATCH', `/print/printers/${label.id}`, { body: { kind: 'label' } });
    expect(labelAgain.body).toMatchObject({ kind: 'label', ...defaults });
  });

  it('refuses a thermal printer without widthMm, naming the field', async () => {
    const res = await stack.api('POST', '/print/printers', { body: { ...thermal, widthMm: undefined } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'validation_failed', status: 400, instance: '/print/printers' });
    expect(fieldErrors(res.body)).toEqual(['body.widthMm']);
  });

  it.each([
    ['paper narrower than 48 mm', { widthMm: 47 }, 'body.widthMm'],
    ['paper wider than 112 mm', { widthMm: 113 }, 'body.widthMm'],
    ['a width in fractions of a millimetre', { widthMm: 79.5 }, 'body.widthMm'],
    ['an IP that is not one', { printerIp: '192.168.1.300' }, 'body.printerIp'],
    ['an address with a scheme', { printerIp: 'http://printer' }, 'body.printerIp'],
    ['an empty address', { printerIp: '' }, 'body.printerIp'],
    ['port 0', { printerPort: 0 }, 'body.printerPort'],
    ['port 65536', { printerPort: 65536 }, 'body.printerPort'],
    ['a port as text', { printerPort: '9100' }, 'body.printerPort'],
    ['an unknown kind', { kind: 'laser' }, 'body.kind'],
    ['an empty display name', { displayName: '  ' }, 'body.displayName'],
    ['a malformed licenseKey', { licenseKey: 'SHORT' }, 'body.licenseKey'],
    ['a label dpi printers do not have', { labelDpi: 250 }, 'body.labelDpi'],
  ])('refuses %s', async (_what, change, path) => {
    const res = await stack.api('POST', '/print/printers', { body: { ...thermal, ...change } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(fieldErrors(res.body)).toContain(path);
  });

  it("refuses a branch that is not the key's user's: 403 branch_forbidden, nothing stored", async () => {
    const res = await stack.api('POST', '/print/printers', { body: { ...thermal, licenseKey: OTHER_USERS_BRANCH, displayName: 'Intrusa' } });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('branch_forbidden');
    const unknown = await stack.api('POST', '/print/printers', { body: { ...thermal, licenseKey: 'NOSUCHBRANCH0001' } });
    expect(unknown.status).toBe(403);
    const theirs = await stack.api('GET', '/print/printers', { key: OTHER_API_KEY });
    expect(theirs.body.data.map((p: { displayName: string }) => p.displayName)).not.toContain('Intrusa');
  });

  it('needs an API key', async () => {
    const res = await stack.api('POST', '/print/printers', { body: thermal, key: null });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });
});

describe('GET /print/printers and /print/printers/{id}', () => {
  it("lists only the key's user's printers, optionally of one branch", async () => {
    const mine = await register({ ...thermal, licenseKey: STRICT_BRANCH, displayName: 'Barra Norte', widthMm: 58 });
    const theirs = await register({ ...thermal, licenseKey: OTHER_USERS_BRANCH, displayName: 'Cocina ajena' }, OTHER_API_KEY);

    const all = await stack.api('GET', '/print/printers');
    expect(all.status).toBe(200);
    const ids = all.body.data.map((p: { id: string }) => p.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    expect(all.body.totalResults).toBe(all.body.data.length);

    const strict = await stack.api('GET', `/print/printers?licenseKey=${STRICT_BRANCH}`);
    expect(strict.body.data.map((p: { id: string }) => p.id)).toEqual([mine.id]);
    expect(strict.body.data[0]).toMatchObject({ workerId: `agent-${STRICT_BRANCH}`, widthMm: 58, displayName: 'Barra Norte' });

    const other = await stack.api('GET', '/print/printers', { key: OTHER_API_KEY });
    expect(other.body.data.map((p: { id: string }) => p.id)).toEqual([theirs.id]);
  });

  it("answers 403 for a licenseKey filter of another user's branch and 400 for a malformed one", async () => {
    expect((await stack.api('GET', `/print/printers?licenseKey=${OTHER_USERS_BRANCH}`)).body.code).toBe('branch_forbidden');
    const bad = await stack.api('GET', '/print/printers?licenseKey=abc');
    expect(bad.status).toBe(400);
    expect(fieldErrors(bad.body)).toEqual(['querystring.licenseKey']);
  });

  it("gets one printer; another user's printer is 404 printer_not_found", async () => {
    const printer = await register({ ...thermal, displayName: 'Para leer' });
    const res = await stack.api('GET', `/print/printers/${printer.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(printer);

    const foreign = await stack.api('GET', `/print/printers/${printer.id}`, { key: OTHER_API_KEY });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'printer_not_found', status: 404, instance: `/print/printers/${printer.id}` });
    expect((await stack.api('GET', `/print/printers/${MISSING_ID}`)).body.code).toBe('printer_not_found');
    const malformed = await stack.api('GET', '/print/printers/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(fieldErrors(malformed.body)).toEqual(['params.id']);
  });

  it('knows a printer by its id as registered (lower case) only: another spelling is a 400 and edits nothing', async () => {
    const printer = await register({ ...thermal, displayName: 'Minúsculas' });
    expect(printer.id).toMatch(UUID);
    const upper = printer.id.toUpperCase();
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { displayName: 'Mayúsculas' }],
      ['PUT', { displayName: 'Mayúsculas' }],
    ] as const) {
      const res = await stack.api(method, `/print/printers/${upper}`, { body });
      expect(res.status, `${method} ${res.text}`).toBe(400);
      expect(res.body.errors).toEqual([{ path: 'params.id', message: expect.stringMatching(/lower case/) }]);
    }
    const printed = await stack.api('POST', `/print/${BRANCH}/prueba`, { body: { printerId: upper } });
    expect(printed.status, printed.text).toBe(400);
    expect(fieldErrors(printed.body)).toEqual(['body.printerId']);
    expect((await stack.api('GET', `/print/printers/${printer.id}`)).body).toEqual(printer);
  });
});

describe('PATCH and PUT /print/printers/{id}', () => {
  it('replaces the fields sent and keeps the others', async () => {
    const printer = await register({ ...thermal, displayName: 'Antes', source: 'manual', sourceId: 'X1' });
    await sleep(5);
    const res = await stack.api('PATCH', `/print/printers/${printer.id}`, { body: { displayName: 'Después', printerPort: 9200, sourceId: null } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...printer, displayName: 'Después', printerPort: 9200, sourceId: null, updatedAt: res.body.updatedAt });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(printer.createdAt as string));
    expect((await stack.api('GET', `/print/printers/${printer.id}`)).body).toEqual(res.body);
  });

  it('accepts PUT with the same meaning', async () => {
    const printer = await register({ ...thermal, displayName: 'Con PUT' });
    const res = await stack.api('PUT', `/print/printers/${printer.id}`, { body: { widthMm: 58, printerIp: '10.0.0.9' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: printer.id, displayName: 'Con PUT', widthMm: 58, printerIp: '10.0.0.9', kind: 'thermal' });
  });

  it('turns a label printer into a thermal one only with a widthMm, and back', async () => {
    const label = await register({ licenseKey: BRANCH, printerIp: '10.0.0.7', displayName: 'Etiquetas', kind: 'label' });
    const missing = await stack.api('PATCH', `/print/printers/${label.id}`, { body: { kind: 'thermal' } });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('validation_failed');
    expect(fieldErrors(missing.body)).toEqual(['body.widthMm']);
    expect((await stack.api('GET', `/print/printers/${label.id}`)).body.kind).toBe('label');

    const thermalNow = await stack.api('PATCH', `/print/printers/${label.id}`, { body: { kind: 'thermal', widthMm: 80 } });
    expect(thermalNow.body).toMatchObject({ kind: 'thermal', widthMm: 80 });
    const cleared = await stack.api('PATCH', `/print/printers/${label.id}`, { body: { widthMm: null } });
    expect(cleared.status).toBe(400);
    const backToLabel = await stack.api('PATCH', `/print/printers/${label.id}`, { body: { kind: 'label', widthMm: null } });
    expect(backToLabel.body).toMatchObject({ kind: 'label', widthMm: null });
  });

  it('validates the fields sent', async () => {
    const printer = await register({ ...thermal, displayName: 'Validada' });
    for (const body of [{ printerPort: 70000 }, { printerIp: '1.2.3' }, { widthMm: 120 }, { kind: 'inkjet' }]) {
      const res = await stack.api('PATCH', `/print/printers/${printer.id}`, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await stack.api('GET', `/print/printers/${printer.id}`)).body).toEqual(printer);
  });

  it("moves a printer to another of the user's branches, never to someone else's", async () => {
    const printer = await register({ ...thermal, displayName: 'Viajera' });
    const moved = await stack.api('PATCH', `/print/printers/${printer.id}`, { body: { licenseKey: STRICT_BRANCH } });
    expect(moved.body).toMatchObject({ licenseKey: STRICT_BRANCH, workerId: `agent-${STRICT_BRANCH}` });
    const stolen = await stack.api('PATCH', `/print/printers/${printer.id}`, { body: { licenseKey: OTHER_USERS_BRANCH } });
    expect(stolen.status).toBe(403);
    expect(stolen.body.code).toBe('branch_forbidden');
    expect((await stack.api('GET', `/print/printers/${printer.id}`)).body.licenseKey).toBe(STRICT_BRANCH);
  });

  it("answers 404 for another user's printer and changes nothing", async () => {
    const printer = await register({ ...thermal, displayName: 'Mía' });
    const res = await stack.api('PATCH', `/print/printers/${printer.id}`, { body: { displayName: 'Robada' }, key: OTHER_API_KEY });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('printer_not_found');
    expect((await stack.api('GET', `/print/printers/${printer.id}`)).body.displayName).toBe('Mía');
  });
});

describe('GET /print/{licenseKey}/printers', () => {
  it("lists the branch's printers with the workerId of its agent", async () => {
    const a = await register({ ...thermal, licenseKey: STRICT_BRANCH, displayName: 'Norte A', printerIp: '10.1.0.1' });
    const b = await register({ licenseKey: STRICT_BRANCH, displayName: 'Norte B', printerIp: '10.1.0.2', kind: 'label' });
    const res = await stack.api('GET', `/print/${STRICT_BRANCH}/printers`);
    expect(res.status).toBe(200);
    expect(res.body.workerId).toBe(`agent-${STRICT_BRANCH}`);
    expect(res.body.data).toEqual(
      expect.arrayContaining([
        { id: a.id, printerIp: '10.1.0.1', printerPort: 9100, displayName: 'Norte A', widthMm: 80, kind: 'thermal' },
        { id: b.id, printerIp: '10.1.0.2', printerPort: 9100, displayName: 'Norte B', widthMm: null, kind: 'label' },
      ]),
    );
    expect(res.body.data.every((p: { id: string }) => Object.keys(p).length === 6)).toBe(true);
  });

  it("answers 403 for another user's branch and 400 for a malformed licenseKey", async () => {
    const res = await stack.api('GET', `/print/${OTHER_USERS_BRANCH}/printers`);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('branch_forbidden');
    expect((await stack.api('GET', '/print/not-a-license/printers')).status).toBe(400);
  });

  it('answers workerId null while the branch agent is offline, and the printers still', async () => {
    const printer = await register({ ...thermal, licenseKey: STRICT_BRANCH, displayName: 'Sin agente' });
    await stack.agents.get(STRICT_BRANCH)!.stop(1000);
    const until = Date.now() + 5000;
    while (stack.gateway.hub.agentFor(STRICT_BRANCH) && Date.now() < until) await sleep(20);
    try {
      const res = await stack.api('GET', `/print/${STRICT_BRANCH}/printers`);
      expect(res.status).toBe(200);
      expect(res.body.workerId).toBeNull();
      expect(res.body.data.map((p: { id: string }) => p.id)).toContain(printer.id);
      expect((await stack.api('GET', `/print/printers/${printer.id}`)).body.workerId).toBeNull();
    } finally {
      await stack.startAgent(STRICT_BRANCH);
    }
  });
});

describe('OpenAPI', () => {
  it('documents the registry with the schemas that validate it', async () => {
    const res = await stack.api('GET', '/openapi.json', { key: null });
    const paths = res.body.paths;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        '/print/printers',
        '/print/printers/{id}',
        '/print/{licenseKey}/printers',
        '/print/{licenseKey}/orden',
        '/print/{licenseKey}/prueba',
      ]),
    );
    const create = paths['/print/printers'].post;
    const body = create.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(expect.arrayContaining(['licenseKey', 'printerIp', 'displayName', 'kind']));
    expect(body.properties.widthMm.anyOf ?? [body.properties.widthMm]).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'integer', minimum: 48, maximum: 112 })]),
    );
    expect(create.responses['201'].content['application/json'].schema.properties).toHaveProperty('workerId');
    expect(paths['/print/printers/{id}'].patch).toBeDefined();
    const order = paths['/print/{licenseKey}/orden'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(order.properties)).not.toContain('printers');
    expect(order.properties.grupos.items.required).toEqual(expect.arrayContaining(['printerId', 'productos']));
  });
});
