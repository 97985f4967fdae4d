/**
 * Events through the whole path: changes made through the API and straight in the POS database
 * (as a terminal makes them) are detected by the agent's poll, stored by the gateway, delivered
 * to a real HTTP receiver as Standard Webhooks (verified with the `standardwebhooks` package)
 * and read from the feed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { EVENT_TYPES } from '../../src/protocol/events.js';
import { BRANCH, OTHER_API_KEY, OTHER_USERS_BRANCH, startTestStack, STRICT_BRANCH, type ApiResponse, type TestStack } from '../support/stack.js';
import { PosFixtures } from '../support/fixtures.js';
import { until } from '../support/until.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { base } from '../support/accounts.js';

let stack: TestStack;
let db: PosDb;
let receiver: WebhookReceiver;
let hook: { id: string; secret: string };

const COMPANY = '0000000001';

beforeAll(async () => {
  stack = await startTestStack({
    links: true,
    agent: { events: { pollIntervalMs: 100 } },
    gateway: { webhooks: { allowHttp: true, allowLoopback: true, retryBaseMs: 50, pollMs: 50 } },
  });
  db = stack.pos.get(BRANCH)!.db;
  receiver = await WebhookReceiver.start();
  const created = await stack.api('POST', '/webhooks', {
    body: {
      url: receiver.url,
      eventos: [...EVENT_TYPES],
      licenseKeys: [BRANCH],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  hook = created.body;
  // The agent's first poll only takes its baseline; wait for it before changing anything.
  await until(async () => (await db.selectFrom('ba_event_state').select('id').executeTakeFirst()) !== undefined);
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

function write(path: string, body: unknown): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': randomUUID() } });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
async function eventFor(type: string, match: (e: any) => boolean = () => true): Promise<any> {
  await until(() => receiver.events(type).some(match), 10_000);
  return receiver.events(type).find(match);
}

/** An account as a terminal opens one: a header and a line written straight into the database. */
async function openOrderAtPos(): Promise<{ folio: number }> {
  const fixtures = await PosFixtures.for(db);
  const written = await fixtures.tempOrder({ fecha: new Date(), lines: [{ idproducto: '3001', cantidad: 1, precio: '89.00' }] });
  return { folio: written.folio };
}

async function openOrder(): Promise<{ folio: number; jobId: string }> {
  const res = await write('/temp_ordenes/{lk}', { ...base, mesa: '', idMesero: '01', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { folio: res.body.folio, jobId: res.body.jobId };
}

describe('webhooks', () => {
  it('shows the secret once; the list never shows it; other users see nothing of it', async () => {
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const list = await stack.api('GET', '/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: hook.id, url: receiver.url, licenseKeys: [BRANCH] })]);
    expect(list.text).not.toContain(hook.secret.slice(6));
    expect((await stack.api('GET', '/webhooks', { key: OTHER_API_KEY })).body.data).toEqual([]);
    const foreign = await stack.api('GET', `/webhooks/${hook.id}/entregas`, { key: OTHER_API_KEY });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('webhook_not_found');
    // A branch of another user cannot be subscribed to.
    const forbidden = await stack.api('POST', '/webhooks', { body: { url: receiver.url, eventos: ['orden.abierta'], licenseKeys: [OTHER_USERS_BRANCH] } });
    expect(forbidden.status).toBe(403);
  });

  it('refuses private, link-local and unspecified addresses, and bad bodies, creating nothing', async () => {
    for (const url of [
      'http://10.1.2.3/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/hook',
      'http://0.0.0.0/',
      'http://[::ffff:192.168.1.9]/',
    ]) {
      const res = await stack.api('POST', '/webhooks', { body: { url, eventos: ['orden.abierta'] } });
      expect(res.status, url).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.code).toBe('webhook_url_refused');
    }
    for (const body of [
      { url: 'ftp://example.com/', eventos: ['orden.abierta'] },
      { url: receiver.url, eventos: [] },
      { url: receiver.url, eventos: ['orden.borrada'] },
    ]) {
      expect((await stack.api('POST', '/webhooks', { body })).status).toBe(400);
    }
    expect((await stack.api('GET', '/webhooks')).body.totalResults).toBe(1);
  });

  it('a test event is signed and delivered at once', async () => {
    const res = await stack.api('POST', `/webhooks/${hook.id}/prueba`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ state: 'delivered', status: 200, error: null });
    const got = receiver.received.find((r) => r.json.id === res.body.eventId)!;
    expect(new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ type: 'webhook.prueba' });
  });
});

describe('orders', () => {
  it('through the API: orden.abierta, signed, naming the job that made it', async () => {
    const { folio, jobId } = await openOrder();
    const event = await eventFor('orden.abierta', (e) => e.data?.folio === folio);
    expect(event).toMatchObject({ licenseKey: BRANCH, origin: 'api', jobId, data: { folio, cancelado: false, pagado: false } });
    expect(event.data.productos).toHaveLength(1);
    const got = receiver.received.find((r) => r.json.id === event.id)!;
    expect(got.headers['webhook-id']).toBe(event.id);
    expect(new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>)).toEqual(event);

    const added = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [{ movimiento: 1, idProducto: '3002', cantidad: 2 }] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const updated = await eventFor('orden.actualizada', (e) => e.data?.folio === folio && e.jobId === added.body.jobId);
    expect(updated.origin).toBe('api');
    expect(updated.data.productos).toHaveLength(2);
  });

  it('at a terminal: lines, payment and cancellation written straight into the POS database', async () => {
    const { folio } = await openOrder();
    await eventFor('orden.abierta', (e) => e.data?.folio === folio);
    await db.updateTable('tempcheqdet').set({ cantidad: 3 }).where('foliodet', '=', folio).execute();
    const updated = await eventFor('orden.actualizada', (e) => e.data?.folio === folio && e.origin === 'pos');
    expect(updated.jobId).toBeNull();
    await db.updateTable('tempcheques').set({ pagado: true }).where('folio', '=', folio).execute();
    expect((await eventFor('orden.pagada', (e) => e.data?.folio === folio)).origin).toBe('pos');

    const other = await openOrder();
    await eventFor('orden.abierta', (e) => e.data?.folio === other.folio);
    await db.updateTable('tempcheques').set({ cancelado: true }).where('folio', '=', other.folio).execute();
    expect(await eventFor('orden.cancelada', (e) => e.data?.folio === other.folio)).toMatchObject({ origin: 'pos', data: { cancelado: true } });
  });
});

describe('products', () => {
  it('a price changed through the API and one changed at the POS', async () => {
    const put = await stack.api('PUT', `/productos/${BRANCH}/3003`, {
      headers: { 'idempotency-key': randomUUID() },
      body: {
        idEmpresa: COMPANY,
        descripcionProducto: 'Producto cambiado',
        idGrupo: 'PLA',
        nombreCorto: 'Cambiado',
        visibleMenu: true,
        precio: 123.5,
        impuesto1: 16,
        impuesto2: 0,
        impuesto3: 0,
        bloqueado: false,
        permitirprodcompenmodif: false,
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const viaApi = await eventFor('producto.actualizado', (e) => e.data?.idProducto === '3003');
    expect(viaApi).toMatchObject({ origin: 'api', jobId: put.body.jobId, data: { precio: 123.5, descripcionProducto: 'Producto cambiado' } });

    await db.updateTable('productosdetalle').set({ precio: '77.7700' }).where('idproducto', '=', '3001').execute();
    const atPos = await eventFor('producto.actualizado', (e) => e.data?.idProducto === '3001');
    expect(atPos).toMatchObject({ origin: 'pos', jobId: null, data: { precio: 77.77 } });
  });
});

describe('shifts', () => {
  it('opened at the POS and through the API; a close moves its accounts: orden.cerrada, turno.cerrado', async () => {
    const opened = await write('/turnos_apertura/{lk}', { estacion: 'CAJA2', idEmpresa: COMPANY, cajero: 'CAJERO', fondo: 100 });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const viaApi = await eventFor('turno.abierto', (e) => e.data?.idTurno === opened.body.idTurno);
    expect(viaApi).toMatchObject({ origin: 'api', jobId: opened.body.jobId, data: { estacion: 'CAJA2' } });
    expect(viaApi.data).not.toHaveProperty('cierre');

    // A terminal closes that shift in turnos by itself.
    await db.updateTable('turnos').set({ cierre: new Date() }).where('idturno', '=', opened.body.idTurno).execute();
    expect((await eventFor('turno.cerrado', (e) => e.data?.idTurno === opened.body.idTurno)).origin).toBe('pos');

    // The paid accounts of CAJA1's shift go to history with its close.
    const open = await db.selectFrom('turnos').select('idturno').where('cierre', 'is', null).where('idestacion', '=', 'CAJA1').executeTakeFirstOrThrow();
    await db.updateTable('tempcheques').set({ cancelado: true }).where('pagado', '=', false).execute();
    const leaving = await db.selectFrom('tempcheques').select('folio').execute();
    const closed = await write('/turnos_cierre/{lk}', { idTurno: Number(open.idturno), estacion: 'CAJA1', idEmpresa: COMPANY, serie: 'A' });
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    const shiftClosed = await eventFor('turno.cerrado', (e) => e.data?.idTurno === Number(open.idturno));
    expect(shiftClosed).toMatchObject({ origin: 'api', jobId: closed.body.jobId });
    await until(() => receiver.events('orden.cerrada').length >= leaving.length);
    const moved = receiver.events('orden.cerrada');
    expect(moved.every((e) => e.origin === 'api' && e.jobId === closed.body.jobId)).toBe(true);
    expect(moved.some((e) => e.data !== null && e.data.numcheque > 0)).toBe(true);
    // Ordered per branch: the webhook got the branch's events in the order the feed has them.
    const feed = (await stack.api('GET', `/eventos/${BRANCH}?limit=500`)).body.data.map((e: { id: string }) => e.id);
    const delivered = receiver
      .events()
      .map((e) => feed.indexOf(e.id))
      .filter((i) => i >= 0);
    expect(delivered).toEqual([...delivered].sort((a, b) => a - b));
  });
});

describe('delivery', () => {
  it('a receiver that answers 500 three times gets the event on the fourth attempt, attempts listed', async () => {
    // Earlier tests' deliveries out of the way, so the failures all fall on this one.
    await until(async () => (await stack.store.db.selectFrom('gw_deliveries').select('id').where('state', '=', 'pending').execute()).length === 0);
    receiver.script = [500, 500, 500];
    const { folio } = await openOrder();
    const event = await eventFor('orden.abierta', (e) => e.data?.folio === folio);
    await until(() => receiver.received.filter((r) => r.json.id === event.id).length >= 4);
    const tries = receiver.received.filter((r) => r.json.id === event.id);
    expect(tries).toHaveLength(4);
    expect(tries.map((t) => t.at - tries[0]!.at)).toEqual([0, expect.any(Number), expect.any(Number), expect.any(Number)]);
    // The same id and a fresh, valid signature on every attempt.
    for (const t of tries) expect(new Webhook(hook.secret).verify(t.body, t.headers as Record<string, string>)).toEqual(event);
    let delivery: { state: string; attemptCount: number; attempts: Array<{ status: number }> } | undefined;
    await until(async () => {
      const list = await stack.api('GET', `/webhooks/${hook.id}/entregas`);
      delivery = list.body.data.find((d: { eventId: string }) => d.eventId === event.id);
      return delivery?.state === 'delivered';
    });
    expect(delivery!.attemptCount).toBe(4);
    expect(delivery!.attempts.map((a) => a.status)).toEqual([200, 500, 500, 500]);
  });

  it("holds a branch's later event back from a webhook while an earlier one keeps failing, then sends both in order", async () => {
    await until(async () => (await stack.store.db.selectFrom('gw_deliveries').select('id').where('state', '=', 'pending').execute()).length === 0);
    receiver.script = Array<number>(1_000).fill(500);
    const attemptsOf = (id: string) => receiver.received.filter((r) => r.json.id === id).length;
    const first = await openOrder();
    const failing = await eventFor('orden.abierta', (e) => e.data?.folio === first.folio);
    const second = await openOrder();
    // The second order's event is in the gateway, its delivery due, while the first keeps failing.
    const stored = async () =>
      ((await stack.api('GET', `/eventos/${BRANCH}?last=50`)).body.data as Array<{ id: string; type: string; data?: { folio?: number } }>).find(
        (e) => e.type === 'orden.abierta' && e.data?.folio === second.folio,
      );
    await until(async () => (await stored()) !== undefined);
    const later = (await stored())!;
    const tried = attemptsOf(failing.id);
    await until(() => attemptsOf(failing.id) > tried);
    expect(attemptsOf(later.id)).toBe(0);
    receiver.script = [];
    await until(() => attemptsOf(later.id) === 1);
    const order = receiver.received.map((r) => r.json.id).filter((id) => id === failing.id || id === later.id);
    expect(order.at(-1)).toBe(later.id);
    expect(order.slice(0, -1).every((id) => id === failing.id)).toBe(true);
  });
});

describe('the feed', () => {
  it('reads events in order after a cursor, and a long poll returns when the next one comes', async () => {
    const first = await stack.api('GET', `/eventos/${BRANCH}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.hasMore).toBe(true);
    const all = await stack.api('GET', `/eventos/${BRANCH}?limit=500`);
    expect(all.body.data.slice(0, 2)).toEqual(first.body.data);
    const cursor = all.body.nextCursor as string;
    const waiting = stack.api('GET', `/eventos/${BRANCH}?after=${cursor}&wait=20`);
    await sleep(300);
    const { folio } = await openOrder();
    const started = Date.now();
    const next = await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(next.body.data[0]).toMatchObject({ type: 'orden.abierta', data: { folio } });
    expect(BigInt(next.body.data[0].cursor)).toBeGreaterThan(BigInt(cursor));

    expect((await stack.api('GET', `/eventos/${OTHER_USERS_BRANCH}`)).status).toBe(403);
    expect((await stack.api('GET', `/eventos/${BRANCH}?after=abc`)).status).toBe(400);
    // 19 digits past a bigint are no cursor the feed ever gave: a 400, not the store's out-of-range error.
    for (const after of ['9223372036854775808', '9999999999999999999']) {
      const refused = await stack.api('GET', `/eventos/${BRANCH}?after=${after}`);
      expect([refused.status, refused.body.code], after).toEqual([400, 'validation_failed']);
    }
    expect((await stack.api('GET', `/eventos/${BRANCH}?after=9223372036854775807`)).body.data).toEqual([]);
  });

  it('reads the newest events with last, then reads on from its cursor', async () => {
    const all = (await stack.api('GET', `/eventos/${BRANCH}?limit=500`)).body.data as Array<{ id: string; cursor: string }>;
    expect(all.length).toBeGreaterThan(2);
    const newest = await stack.api('GET', `/eventos/${BRANCH}?last=2`);
    expect(newest.status).toBe(200);
    expect(newest.body).toEqual({ data: all.slice(-2), nextCursor: all.at(-1)!.cursor, hasMore: false });
    const { folio } = await openOrder();
    const next = await stack.api('GET', `/eventos/${BRANCH}?after=${newest.body.nextCursor}&wait=20`);
    expect(next.body.data[0]).toMatchObject({ type: 'orden.abierta', data: { folio } });

    expect((await stack.api('GET', `/eventos/${STRICT_BRANCH}?last=5`)).body).toMatchObject({ nextCursor: null, hasMore: false });
    for (const query of [`after=${newest.body.nextCursor}&last=2`, 'last=0', 'last=501']) {
      const refused = await stack.api('GET', `/eventos/${BRANCH}?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.code).toBe('validation_failed');
    }
  });
});

describe('nothing lost, nothing duplicated under another id', () => {
  it('across an agent restart, a gateway restart and a cut link', async () => {
    const before = receiver.events().length;
    const expected: number[] = [];
    const change = async () => {
      const { folio } = await openOrder();
      expected.push(folio);
    };
    // Agent stopped: a terminal keeps working; the restarted agent finds the change.
    await stack.agents.get(BRANCH)!.stop(2000);
    const { folio: a } = await openOrderAtPos();
    await stack.startAgent(BRANCH);
    await until(() => stack.gateway.hub.agentFor(BRANCH) !== undefined);
    await change();
    // Gateway restarted: the agent's outbox keeps what it detects meanwhile.
    await stack.gateway.app.close();
    await sleep(300);
    const { folio: b } = await openOrderAtPos();
    await sleep(300);
    await stack.restartGateway();
    await until(() => stack.gateway.hub.agentFor(BRANCH) !== undefined);
    await change();
    stack.links.get(BRANCH)!.sever();
    const { folio: c } = await openOrderAtPos();
    await until(() => stack.gateway.hub.agentFor(BRANCH) !== undefined);
    await change();
    expected.push(a, b, c);
    await until(() => expected.every((folio) => receiver.events('orden.abierta').some((e) => e.data?.folio === folio)), 20_000);

    const { rows } = await stack.store.db
      .selectFrom('gw_events')
      .select(['event_id', 'payload'])
      .where('license_key', '=', BRANCH)
      .execute()
      .then((r) => ({ rows: r }));
    // One stored event per id, and per change: no account opened twice.
    const opened = rows.map((r) => JSON.parse(r.payload)).filter((e) => e.type === 'orden.abierta');
    const folios = opened.map((e) => `${e.data.folio}|${e.data.fecha}`);
    expect(new Set(folios).size).toBe(folios.length);
    expect(receiver.events().length).toBeGreaterThan(before);
    // Everything received was stored, under the id it was stored with.
    const ids = new Set(rows.map((r) => r.event_id));
    expect(receiver.events().filter((e) => e.type !== 'webhook.prueba' && !ids.has(e.id))).toEqual([]);
  });
});
