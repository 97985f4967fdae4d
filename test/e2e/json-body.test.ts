/**
 * Bodies are JSON in UTF-8 and nothing else: another charset is a 415, a byte order mark or bytes
 * that are not UTF-8 a 400, and none of them writes anything.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** Sends `bytes` as they are, with this Content-Type. */
async function post(path: string, contentType: string, bytes: Uint8Array) {
  const res = await fetch(stack.url + path, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'idempotency-key': randomUUID(), 'content-type': contentType },
    body: bytes,
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, body: JSON.parse(text) };
}

const BOM = Uint8Array.from([0xef, 0xbb, 0xbf]);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const utf8 = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

const order = (mesa: string) => ({ estacion: 'CAJA1', serie: 'A', idEmpresa: '0000000001', idMesero: '01', mesa });
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
