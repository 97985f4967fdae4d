/**
 * Strings no database of the product can keep: NUL (PostgreSQL refuses it in text and jsonb, so
 * a write fails after its job may already have run elsewhere) and lone UTF-16 surrogates (they
 * have no UTF-8 form: drivers silently store U+FFFD instead). They are refused before
 * authorisation, idempotency or any job, as 400 validation_failed naming each field: in a JSON
 * body where it is parsed (json-body.ts), in the path and query in one hook every route goes
 * through.
 */
import type { FastifyRequest } from 'fastify';
import { invalidRequest, type FieldError } from './problems.js';

// Without the `u` flag a regex sees UTF-16 code units, so a surrogate without its partner shows.
// eslint-disable-next-line no-control-regex -- NUL is exactly what it looks for
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

const MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

export function isStorableText(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** `text` with each unstorable character replaced by U+FFFD: for records that must be written whatever they hold. */
export function toStorableText(text: string): string {
  return text.replace(UNSTORABLE_ALL, '\uFFFD');
}

/** Enough to correct a request by; a body of nothing else is not answered with a list as long. */
const MAX_ERRORS = 20;

/** The unstorable strings in `value` (property names included), by dotted path: the first MAX_ERRORS. */
export function unstorableTextErrors(value: unknown, path: readonly string[]): FieldError[] {
  const errors: FieldError[] = [];
  collect(value, path, errors);
  return errors;
}

/**
 * Walks the value once; numbers and booleans, most of a large array, cost a type check each. A
 * path is built only for what is visited, and joined only for what is wrong.
 */
function collect(value: unknown, path: readonly string[], errors: FieldError[]): void {
  if (errors.length >= MAX_ERRORS) return;
  if (typeof value === 'string') {
    if (!isStorableText(value)) errors.push({ path: path.join('.'), message: MESSAGE });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === 'string' || (typeof child === 'object' && child !== null)) collect(child, [...path, String(i)], errors);
    }
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    // A bad property name is reported on its parent: echoing it back would repeat the bad text.
    if (errors.length >= MAX_ERRORS) return;
    if (!isStorableText(key)) errors.push({ path: path.join('.'), message: `has a property name that ${MESSAGE}` });
    else collect(child, [...path, key], errors);
  }
}

export async function refuseUnstorableText(request: FastifyRequest): Promise<void> {
  const errors = [...unstorableTextErrors(request.params, ['params']), ...unstorableTextErrors(request.query, ['querystring'])];
  if (errors.length > 0) throw invalidRequest(errors);
}
