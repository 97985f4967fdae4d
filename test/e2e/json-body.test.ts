/**
 * Bodies are JSON in UTF-8 and nothing else: another charset is a 415, a byte order mark or bytes
 * that are not UTF-8 a 400, and none of them writes anything. Bodies shaped to stall the gateway
 * (nested 100,000 deep, 4 MiB of tiny values) are a 400 in bounded time, whoever sends them, while
 * /healthz keeps answering.
 */
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/gateway/json-shape.js';
import { API_KEY, BRANCH, OTHER_API_KEY, startTestStack, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** Sends `bytes` as they are, with this Content-Type. */
async function post(path: string, contentType: string, bytes: Uint8Array, key = API_KEY) {
  const res = await fetch(stack.url + path, {
    method: 'POST',
    headers: { 'x-api-key': key, 'idempotency-key': randomUUID(), 'content-type': contentType },
    body: bytes,
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, body: JSON.parse(text) };
}

const BOM = Uint8Array.from([0xef, 0xbb, 0xbf]);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const utf8 = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

const order = (mesa: string) => orderBody({ serie: 'A', idMesero: '01', mesa });
const ordersAt = async (mesa: string) =>
  (await stack.pos.get(BRANCH)!.db.selectFrom('tempcheques').select('mesa').where('mesa', 'like', `${mesa}%`).execute()).map((r) => r.mesa);
const printers = async () => Number((await sql<{ n: string }>`select count(*) as n from gw_printers`.execute(stack.store.db)).rows[0]!.n);

describe('charsets', () => {
  it.each([
    ['application/json; charset=latin1', (v: unknown) => Buffer.from(JSON.stringify(v), 'latin1')],
    ['application/json; charset=ISO-8859-1', (v: unknown) => Buffer.from(JSON.stringify(v), 'latin1')],
    ['application/json; charset=utf-16', (v: unknown) => Buffer.from(JSON.stringify(v), 'utf16le')],
    ['application/json;charset="windows-1252"', (v: unknown) => Buffer.from(JSON.stringify(v), 'latin1')],
  ])('%s is a 415 and no order is written', async (contentType, encode) => {
    const mesa = `C${randomUUID().slice(0, 6)}`;
    const res = await post(`/temp_ordenes/${BRANCH}`, contentType, encode(order(`${mesa}Café`)));
    expect(res.status, res.text).toBe(415);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 415, code: 'unsupported_media_type', detail: expect.stringMatching(/UTF-8/) });
    expect(await ordersAt(mesa)).toEqual([]);
  });

  it('a charset other than UTF-8 registers no printer either', async () => {
    const before = await printers();
    const res = await post(
      '/print/printers',
      'application/json; charset=latin1',
      Buffer.from(JSON.stringify({ licenseKey: BRANCH, printerIp: '10.0.0.7', displayName: 'Cafetería', kind: 'label' }), 'latin1'),
    );
    expect(res.status).toBe(415);
    expect(await printers()).toBe(before);
  });

  it('a body that is not JSON is a 415', async () => {
    const res = await post(`/temp_ordenes/${BRANCH}`, 'text/plain', utf8(order('T')));
    expect(res.status).toBe(415);
    expect(res.body.code).toBe('unsupported_media_type');
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset="utf-8"'])(
    '%s is read as UTF-8, accents intact',
    async (contentType) => {
      const mesa = `U${randomUUID().slice(0, 6)}`;
      const res = await post(`/temp_ordenes/${BRANCH}`, contentType, utf8(order(`${mesa}Café`)));
      expect(res.status, res.text).toBe(201);
      expect(await ordersAt(mesa)).toEqual([`${mesa}Café`]);
    },
  );
});

describe('bytes', () => {
  it('a byte order mark is a 400 naming the body, and nothing is written', async () => {
    const mesa = `B${randomUUID().slice(0, 6)}`;
    const res = await post(`/temp_ordenes/${BRANCH}`, 'application/json', concat(BOM, utf8(order(mesa))));
    expect(res.status, res.text).toBe(400);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'body', message: expect.stringMatching(/byte order mark/) }] });
    expect(await ordersAt(mesa)).toEqual([]);
  });

  it('bytes that are not UTF-8 are a 400, and nothing is written', async () => {
    const mesa = `I${randomUUID().slice(0, 6)}`;
    const [head, tail] = JSON.stringify(order(`${mesa}X`)).split('X') as [string, string];
    // 0xE9 is é in Latin-1, and no UTF-8 sequence; 0xC3 0x28 is a truncated one.
    for (const bad of [[0xe9], [0xc3, 0x28]]) {
      const res = await post(
        `/temp_ordenes/${BRANCH}`,
        'application/json',
        concat(new TextEncoder().encode(head), Uint8Array.from(bad), new TextEncoder().encode(tail)),
      );
      expect(res.status, res.text).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'body', message: 'is not valid UTF-8' }] });
    }
    expect(await ordersAt(mesa)).toEqual([]);
  });
});

describe('shapes that would stall the gateway', () => {
  const nestedArrays = (depth: number) => Buffer.from(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
  const nestedObjects = (depth: number) => Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
  const MIB = 1024 * 1024;
  // Just under the 4 MiB body limit: two million values.
  const manyValues = Buffer.from(`{"idTurnos":[${'1,'.repeat(2 * MIB - 8)}1]}`);
  const hostile = [...[MAX_JSON_DEPTH + 1, 1_000, 7_000, 100_000].flatMap((depth) => [nestedArrays(depth), nestedObjects(depth)]), manyValues];

  it('refuses nesting past the limit with a 400 naming it, from the owner and from another user alike', async () => {
    expect((await post(`/temp_ordenes/${BRANCH}`, 'application/json', nestedObjects(MAX_JSON_DEPTH))).body.errors).not.toEqual([
      expect.objectContaining({ path: 'body', message: expect.stringMatching(/levels deep/) }),
    ]);
    for (const bytes of hostile.slice(0, -1)) {
      for (const key of [API_KEY, OTHER_API_KEY]) {
        const started = performance.now();
        const res = await post(`/temp_ordenes/${BRANCH}`, 'application/json', bytes, key);
        expect(res.status, res.text).toBe(400);
        expect(res.contentType).toMatch(/^application\/problem\+json/);
        expect(res.body.errors).toEqual([{ path: 'body', message: `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep` }]);
        expect(performance.now() - started).toBeLessThan(1_000);
      }
    }
  });

  it('refuses 4 MiB of tiny values with a 400 naming the limit, and a body past 4 MiB with a 413', async () => {
    expect(manyValues.length).toBeLessThanOrEqual(4 * MIB);
    const res = await post(`/ordenes/buscar/${BRANCH}`, 'application/json', manyValues);
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'body', message: expect.stringMatching(/^holds more than [\d,]+ array items and object members$/) }]);
    const tooLarge = await post(`/ordenes/buscar/${BRANCH}`, 'application/json', Buffer.concat([manyValues, Buffer.from(' '.repeat(64))]));
    expect(tooLarge.status, tooLarge.text).toBe(413);
  });

  /** /healthz, one request after another until `done` says stop: each one's latency. */
  async function healthzLatencies(done: () => boolean): Promise<number[]> {
    const latencies: number[] = [];
    while (!done()) {
      const started = performance.now();
      await (await fetch(`${stack.url}/healthz`)).text();
      latencies.push(performance.now() - started);
    }
    return latencies;
  }
  const p99 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.ceil(samples.length * 0.99) - 1]!;

  it('keeps /healthz answering within 50 ms of its idle p99 while such bodies arrive', async () => {
    // The same machine idle, first: one loaded by other work answers slower than that with no body at all.
    const idleUntil = performance.now() + 1_500;
    const idle = await healthzLatencies(() => performance.now() > idleUntil);
    // The bodies come one after another (about 50 a second) from another thread, so that sending them costs this event loop (the gateway's) nothing.
    const senders = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
      const bodies = workerData.bodies.map((b) => Buffer.from(b));
      const statuses = [];
      const until = performance.now() + 2000;
      const send = async () => {
        do {
          for (const body of bodies) {
            const res = await fetch(workerData.url, { method: 'POST', headers: { 'x-api-key': workerData.key, 'content-type': 'application/json' }, body });
            await res.arrayBuffer();
            statuses.push(res.status);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        } while (performance.now() < until);
      };
      send().then(() => parentPort.postMessage(statuses));`,
      { eval: true, workerData: { url: `${stack.url}/ordenes/buscar/${BRANCH}`, key: OTHER_API_KEY, bodies: hostile } },
    );
    let sending = true;
    const sent = new Promise<number[]>((resolve, reject) => {
      senders.once('message', resolve);
      senders.once('error', reject);
    }).finally(() => (sending = false));
    const loaded = await healthzLatencies(() => !sending);
    const statuses = await sent;
    await senders.terminate();
    expect(statuses.length).toBeGreaterThanOrEqual(hostile.length);
    expect(new Set(statuses)).toEqual(new Set([400]));
    expect(loaded.length).toBeGreaterThan(100);
    const context = `p99 ${p99(loaded).toFixed(1)} ms with the bodies, ${p99(idle).toFixed(1)} ms idle`;
    // Under 50 ms on a quiet machine; on a busy one, within 50 ms of what it answers idle.
    expect(p99(loaded), context).toBeLessThan(50 + p99(idle));
  });
});
