/**
 * The only body the API reads: JSON in UTF-8 (docs/api.md, Conventions). Fastify's own parser decodes
 * any declared charset as UTF-8, drops a byte order mark and turns invalid bytes into U+FFFD, so
 * a Latin-1 or UTF-16 body was written as mangled text. Here a body is refused instead: 415 for a
 * charset other than UTF-8, 400 for a byte order mark, bytes that are not UTF-8 or bad JSON.
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, invalidRequest } from './problems.js';

const UTF8_NAMES = new Set(['utf-8', 'utf8']);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The charset parameter of a Content-Type header, lower-cased, or undefined when none is given. */
export function charsetOf(contentType: string | undefined): string | undefined {
  for (const parameter of (contentType ?? '').split(';').slice(1)) {
    const [name = '', value = ''] = parameter.split('=', 2).map((s) => s.trim());
    if (name.toLowerCase() === 'charset') return value.replace(/^"(.*)"$/, '$1').toLowerCase();
  }
  return undefined;
}

const bodyProblem = (message: string) => invalidRequest([{ path: 'body', message }]);

export function acceptOnlyUtf8Json(app: FastifyInstance): void {
  // Fastify's JSON parsing (prototype poisoning refused as before) on text checked here first.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Text bodies were parsed too and then failed validation as strings: now a clear 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && !UTF8_NAMES.has(charset)) {
      return done(
        new ApiError('unsupported_media_type', 'Send JSON bodies in UTF-8 (Content-Type: application/json; charset=utf-8); no other charset is read.'),
      );
    }
    if (body.subarray(0, BOM.length).equals(BOM)) return done(bodyProblem('starts with a byte order mark: send UTF-8 JSON without one'));
    if (!isUtf8(body)) return done(bodyProblem('is not valid UTF-8'));
    void parseJson(request, body.toString('utf8'), done);
  });
}
