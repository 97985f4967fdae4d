/**
 * The only body the API reads: JSON in UTF-8 (docs/api.md, Conventions). Fastify's own parser decodes
 * any declared charset as UTF-8, drops a byte order mark and turns invalid bytes into U+FFFD, so
 * a Latin-1 or UTF-16 body was written as mangled text. Here a body is refused instead: 415 for a
 * charset other than UTF-8, 400 for a byte order mark, bytes that are not UTF-8, a shape past the
 * limits of json-shape.ts, bad JSON, or text no database can keep (unstorable-text.ts).
 */
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_VALUES } from './json-shape.js';
import { ApiError, invalidRequest } from './problems.js';
import { unstorableTextErrors } from './unstorable-text.js';

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

const SHAPE_MESSAGES = {
  depth: `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
  values: `holds more than ${MAX_JSON_VALUES} array items and object members`,
};

/**
 * In JSON text, NUL and lone surrogates can only be written as \u escapes (raw control characters
 * are not JSON, and isUtf8 refuses encoded surrogates): a body without such an escape is not
 * walked at all. An escaped backslash before `u` matches too, and is walked for nothing.
 */
const MAY_BE_UNSTORABLE = /\\u(?:0000|d[89a-f])/i;

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
    const shape = jsonShapeProblem(body);
    if (shape) return done(bodyProblem(SHAPE_MESSAGES[shape]));
    const text = body.toString('utf8');
    void parseJson(request, text, (error, value?: unknown) => {
      if (error) return done(error);
      const unstorable = MAY_BE_UNSTORABLE.test(text) ? unstorableTextErrors(value, ['body']) : [];
      done(unstorable.length > 0 ? invalidRequest(unstorable) : null, value);
    });
  });
}
