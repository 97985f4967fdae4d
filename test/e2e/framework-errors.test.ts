/**
 * Every error is a problem: also those Node's HTTP parser and Fastify raise before any route
 * runs. Each is application/problem+json with a code, and none repeats what the request held.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Writes `request` as it is on a new connection and reads the answer until the server closes it (every request says Connection: close). */
function raw(request: string | Buffer): Promise<RawResponse> {
  const { hostname, port } = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    // The server may answer and close before it has read everything (413): what came back counts.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text: body });
    });
  });
}

const get = (path: string, extraHeaders = '') =>
  raw(`GET ${path} HTTP/1.1\r\nHost: gateway\r\nX-Api-Key: ${API_KEY}\r\nConnection: close\r\n${extraHeaders}\r\n`);
const post = (path: string, contentType: string, body: string) =>
  raw(
    `POST ${path} HTTP/1.1\r\nHost: gateway\r\nX-Api-Key: ${API_KEY}\r\nIdempotency-Key: k-${Math.random()}\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );

const MARKER = 'ECHOMARKER';

function expectProblem(res: RawResponse, status: number, code: string): Record<string, unknown> {
  expect(res.status, res.text).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.text) as Record<string, unknown>;
  expect(body).toMatchObject({
    status,
    code,
    title: expect.any(String),
    detail: expect.any(String),
    type: expect.stringMatching(new RegExp(`^https?://[^/]+/problems/${code}$`)),
  });
  expect(res.text).not.toContain(MARKER);
  return body;
}

describe("Node's HTTP parser", () => {
  it('headers too large: 431 header_fields_too_large', async () => {
    expectProblem(await get(`/productos/${BRANCH}`, `X-Filler: ${MARKER}${'a'.repeat(20_000)}\r\n`), 431, 'header_fields_too_large');
  });

  it('a URL too long for the parser: 431 as well, not quoted', async () => {
    expectProblem(await get(`/productos/${BRANCH}?search=${MARKER}${'b'.repeat(20_000)}`), 431, 'header_fields_too_large');
  });

  it('a request that is not HTTP: 400 malformed_request', async () => {
    expectProblem(await raw(`GET /${MARKER} HTTP/1.1\r\nHost: gateway\r\nNo colon ${MARKER}\r\n\r\n`), 400, 'malformed_request');
  });
});

describe("Fastify's router", () => {
  it('a path segment past the router limit: 414 uri_too_long, the path not quoted', async () => {
    const body = expectProblem(await get(`/print/printers/${MARKER}${'c'.repeat(200)}`), 414, 'uri_too_long');
    expect(body).not.toHaveProperty('instance');
  });

  it('bad percent-encoding in the path: 400 malformed_request', async () => {
    expectProblem(await get(`/print/printers/${MARKER}%zz`), 400, 'malformed_request');
  });

  it('an unknown path: 404 not_found, the path not quoted', async () => {
    const body = expectProblem(await get(`/nothing/${MARKER}`), 404, 'not_found');
    expect(body).not.toHaveProperty('instance');
  });
});

describe("Fastify's body handling", () => {
  it('JSON that does not parse: 400 validation_failed on the body, its text not quoted', async () => {
    const body = expectProblem(await post(`/temp_ordenes/${BRANCH}`, 'application/json', `{"mesa": ${MARKER}}`), 400, 'validation_failed');
    expect(body).toMatchObject({ errors: [{ path: 'body', message: 'is not valid JSON' }], instance: `/temp_ordenes/${BRANCH}` });
  });

  it('an empty JSON body: 400 validation_failed on the body', async () => {
    const body = expectProblem(await post(`/temp_ordenes/${BRANCH}`, 'application/json', ''), 400, 'validation_failed');
    expect(body.errors).toEqual([{ path: 'body', message: expect.stringMatching(/empty/) }]);
  });

  it('a media type it does not read: 415, the type not quoted', async () => {
    expectProblem(await post(`/temp_ordenes/${BRANCH}`, `application/x-${MARKER}`, '{}'), 415, 'unsupported_media_type');
  });

  it('a body over the limit: 413 payload_too_large', async () => {
    expectProblem(await post('/print/printers', 'application/json', `{"x":"${MARKER}${'d'.repeat(5 * 1024 * 1024)}"}`), 413, 'payload_too_large');
  });
});
