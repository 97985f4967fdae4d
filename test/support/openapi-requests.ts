/**
 * Requests generated from the API's own description (/openapi.json) with fast-check: a valid
 * request for an endpoint, built from its schemas and from values the branch really has, and the
 * hostile variations of it a sloppy client or an attacker sends. Used by the API's property test.
 */
import fc from 'fast-check';

/** The subset of OpenAPI 3.0 schema objects the gateway emits. */
export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean | number;
  exclusiveMaximum?: boolean | number;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
  default?: unknown;
  description?: string;
  additionalProperties?: boolean | Schema;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

interface OpenApiOperation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

export interface Endpoint {
  method: string;
  /** OpenAPI path with `{name}` placeholders. */
  path: string;
  params: Parameter[];
  body?: Schema;
  /** Whether the endpoint takes an Idempotency-Key, as its declared header says. */
  idempotencyKey: 'required' | 'optional' | 'none';
  responses: OpenApiOperation['responses'];
  /** fast-check names the endpoint in a counterexample instead of printing its schemas. */
  [fc.toStringMethod]: () => string;
}

export function endpointsOf(doc: OpenApiDocument): Endpoint[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const params = op.parameters ?? [];
      const key = params.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      return {
        method: method.toUpperCase(),
        path,
        params: params.filter((p) => p.in !== 'header'),
        body: op.requestBody?.content['application/json']?.schema,
        idempotencyKey: key ? (key.required ? 'required' : 'optional') : 'none',
        responses: op.responses,
        [fc.toStringMethod]: () => `${method.toUpperCase()} ${path}`,
      } satisfies Endpoint;
    }),
  );
}

/** Values this branch really has, by field name (`estacion`, `idProducto`, `folio`...), so that valid requests reach the POS. */
export type Pools = Record<string, readonly unknown[]>;

const ISO_DAY = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true });

function stringArbitrary(name: string, s: Schema): fc.Arbitrary<string> {
  if (s.pattern) return fc.stringMatching(new RegExp(s.pattern));
  if (s.format === 'date-time' || /(Start|End)$/.test(name)) {
    return fc.oneof(
      ISO_DAY.map((d) => d.toISOString().slice(0, 10)),
      ISO_DAY.map((d) => d.toISOString().slice(0, 19)),
    );
  }
  if (s.format === 'ipv4' || name === 'printerIp') return fc.ipV4();
  return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 20, 20) });
}

function numberArbitrary(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = s.minimum ?? (integer ? -1000 : -1000);
  const max = Math.min(s.maximum ?? 100_000, 100_000);
  const exclusiveMin = s.exclusiveMinimum === true || typeof s.exclusiveMinimum === 'number';
  if (integer) return fc.integer({ min: Math.max(Math.ceil(min) + (exclusiveMin ? 1 : 0), -1_000_000), max: Math.floor(max) });
  return fc
    .double({ min: Math.max(min, -1_000_000), max, noNaN: true, noDefaultInfinity: true, minExcluded: exclusiveMin })
    .map((n) => Math.round(n * 100) / 100)
    .filter((n) => (exclusiveMin ? n > min : n >= min));
}

/** A value the schema accepts; for a field the branch has a pool of, mostly one of those. */
export function valueArbitrary(s: Schema, name: string, pools: Pools): fc.Arbitrary<unknown> {
  const pool = pools[name];
  const own = schemaValue(s, name, pools);
  return pool && pool.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...pool), weight: 9 }, { arbitrary: own, weight: 1 }) : own;
}

function schemaValue(s: Schema, name: string, pools: Pools): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((a) => schemaValue(a, name, pools)));
  if (s.allOf) return schemaValue(Object.assign({}, ...s.allOf) as Schema, name, pools);
  switch (s.type) {
    case 'string':
      return stringArbitrary(name, s);
    case 'integer':
      return numberArbitrary(s, true);
    case 'number':
      return numberArbitrary(s, false);
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = fc.array(valueArbitrary(s.items ?? {}, singular(name), pools), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(Math.min(s.maxItems ?? 4, 4), s.minItems ?? 0),
      });
      // Lines numbered by their position in the request (create, add lines) are numbered so.
      const positional = s.items?.properties?.movimiento?.description?.includes('position in this request');
      return positional ? items.map((lines) => lines.map((line, i) => ({ ...(line as object), movimiento: i + 1 }))) : items;
    }
    case 'object':
      return objectArbitrary(s, pools);
    default:
      return fc.constantFrom<unknown>('x', 1, true);
  }
}

function singular(name: string): string {
  return name === 'idTurnos' ? 'idTurno' : name;
}

export function objectArbitrary(s: Schema, pools: Pools): fc.Arbitrary<Record<string, unknown>> {
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const entries = Object.entries(props);
  if (entries.length === 0) return fc.constant({});
  return fc.record(Object.fromEntries(entries.map(([k, v]) => [k, valueArbitrary(v, k, pools)])), {
    requiredKeys: entries.map(([k]) => k).filter((k) => required.has(k)),
  });
}

/** What an attacker or a careless integration puts into a text field. */
/** A value no answer has any reason to hold: a problem that does quoted the request back. */
export const ECHO_MARKER = 'echo-marker-5b1d';

export const HOSTILE_STRINGS: readonly string[] = [
  ECHO_MARKER,
  '"; SELECT pg_sleep(10); --',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202eCAJA1',
  'ＣＡＪＡ１',
  '<script>alert(1)</script>',
  'CAJA1\r\nX-Injected: 1',
  '😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀',
  "' OR 1=1; --",
  '%00',
  '../../etc/passwd',
  '',
  ' ',
  '\u200b',
  'Ω≈ç√∫˜µ≤≥÷',
  'x'.repeat(5000),
];

type Path = Array<string | number>;

/** Every leaf (and every object or array, which can be swapped too) with the path to it. */
export function leaves(value: unknown, path: Path = []): Array<{ path: Path; value: unknown }> {
  const here = path.length > 0 ? [{ path, value }] : [];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => leaves(v, [...path, i]))];
  if (value !== null && typeof value === 'object') return [...here, ...Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]))];
  return here;
}

export function replaceAt(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, replacement) : v));
  const obj = value as Record<string, unknown>;
  return { ...obj, [head!]: replaceAt(obj[head!], rest, replacement) };
}

export function removeAt(value: unknown, path: Path): unknown {
  const [head, ...rest] = path;
  if (Array.isArray(value)) return rest.length === 0 ? value.filter((_, i) => i !== head) : value.map((v, i) => (i === head ? removeAt(v, rest) : v));
  const obj = value as Record<string, unknown>;
  if (rest.length === 0) return Object.fromEntries(Object.entries(obj).filter(([k]) => k !== head));
  return { ...obj, [head!]: removeAt(obj[head!], rest) };
}

/**
 * Percent-encoding as a sloppy client does it, lone surrogates included (as the three bytes
 * WTF-8 gives them), where encodeURIComponent throws and URLSearchParams silently substitutes.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    if (pair) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xed, 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(text[i]!);
    }
  }
  return out;
}

/** A value of the wrong kind for whatever was there. */
export const WRONG_VALUES: readonly unknown[] = [null, '1e999', 1e308, -1, 1.5, '', [], {}, true, '٣', 'NaN', 2 ** 53 + 2, { $gt: '' }];

const RAW_BODIES = ['bom', 'invalid-utf8', 'latin1', 'utf16', 'not-json', 'empty', 'top-level-array', 'text-plain', 'deep', 'huge'] as const;
/** `deep` and `huge` are shaped to stall a parser: nested 100,000 deep, and 4 MiB of tiny values. */
export const STALLING_BODIES: ReadonlySet<RawBody> = new Set(['deep', 'huge']);
type RawBody = (typeof RAW_BODIES)[number];

/** The ways one request goes wrong; `valid` is the request as a careful client sends it. */
export type Variation =
  | { kind: 'valid' }
  | { kind: 'hostile-string'; leaf: number; text: string }
  | { kind: 'wrong-value'; leaf: number; value: unknown }
  | { kind: 'drop-field'; leaf: number }
  | { kind: 'extra-field'; name: string; value: unknown }
  | { kind: 'raw-body'; body: RawBody }
  | { kind: 'auth'; key: 'missing' | 'unknown' | 'other-user' | 'control-chars' }
  | { kind: 'idempotency-key'; key: 'missing' | 'empty' | 'too-long' | 'control-chars' }
  | { kind: 'other-branch' };

export const variationArbitrary: fc.Arbitrary<Variation> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'valid' as const }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant('hostile-string' as const), leaf: fc.nat(), text: fc.constantFrom(...HOSTILE_STRINGS) }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant('wrong-value' as const), leaf: fc.nat(), value: fc.constantFrom(...WRONG_VALUES) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('drop-field' as const), leaf: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('extra-field' as const),
      name: fc.constantFrom('__proto__', 'constructor', 'x', 'licenseKey'),
      value: fc.constantFrom<unknown>(1, 'x', { polluted: true }),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('raw-body' as const),
      body: fc.constantFrom(...RAW_BODIES),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constant('auth' as const), key: fc.constantFrom('missing', 'unknown', 'other-user', 'control-chars') }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('idempotency-key' as const), key: fc.constantFrom('missing', 'empty', 'too-long', 'control-chars') }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'other-branch' as const }), weight: 1 },
);

/** A path or query value as a client would write it: text as is, anything else as JSON. */
const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

export interface PlannedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** For the failure message: what was sent, readably. */
  label: string;
  /** The Idempotency-Key sent, if any. */
  idempotencyKey?: string;
}

export interface Credentials {
  apiKey: string;
  otherUsersKey: string;
  branch: string;
  otherUsersBranch: string;
}

/** The request, as bytes on the wire, for one endpoint, its valid input and a variation. */
export function planRequest(
  endpoint: Endpoint,
  input: { path: Record<string, unknown>; query: Record<string, unknown>; body?: unknown },
  variation: Variation,
  creds: Credentials,
  keySeed: string,
): PlannedRequest {
  let { path, query, body } = input;
  // The variation's leaf index picks among every leaf of path, query and body.
  const all = [
    ...leaves(path).map((l) => ({ ...l, part: 'path' as const })),
    ...leaves(query).map((l) => ({ ...l, part: 'query' as const })),
    ...(body === undefined ? [] : leaves(body).map((l) => ({ ...l, part: 'body' as const }))),
  ];
  const pick = (n: number) => (all.length === 0 ? undefined : all[n % all.length]!);
  const edit = (part: 'path' | 'query' | 'body', fn: (v: unknown) => unknown) => {
    if (part === 'path') path = fn(path) as Record<string, unknown>;
    else if (part === 'query') query = fn(query) as Record<string, unknown>;
    else body = fn(body);
  };
  if (variation.kind === 'hostile-string' || variation.kind === 'wrong-value') {
    const target = pick(variation.leaf);
    if (target) edit(target.part, (v) => replaceAt(v, target.path, variation.kind === 'hostile-string' ? variation.text : variation.value));
  } else if (variation.kind === 'drop-field') {
    const target = pick(variation.leaf);
    if (target && target.part !== 'path') edit(target.part, (v) => removeAt(v, target.path));
  } else if (variation.kind === 'extra-field' && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    body = JSON.parse(`{${JSON.stringify(variation.name)}:${JSON.stringify(variation.value)},${JSON.stringify(body).slice(1)}`.replace(/,}$/, '}'));
  }
  if (variation.kind === 'other-branch') path = { ...path, licenseKey: creds.otherUsersBranch };

  let url = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => percentEncode(asText(path[name] ?? 'x')));
  const search = Object.entries(query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${percentEncode(k)}=${percentEncode(asText(v))}`);
  if (search.length > 0) url += `?${search.join('&')}`;

  const headers: Record<string, string> = { 'x-api-key': creds.apiKey };
  if (variation.kind === 'auth') {
    if (variation.key === 'missing') delete headers['x-api-key'];
    else headers['x-api-key'] = { unknown: 'no-such-key-0000', 'other-user': creds.otherUsersKey, 'control-chars': 'key\tvalue' }[variation.key];
  }
  let idempotencyKey: string | undefined = endpoint.idempotencyKey === 'none' ? undefined : `fuzz-${keySeed}`;
  if (variation.kind === 'idempotency-key' && endpoint.idempotencyKey !== 'none') {
    idempotencyKey = { missing: undefined, empty: '', 'too-long': 'k'.repeat(300), 'control-chars': 'a\tb' }[variation.key];
  }
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;

  let bytes: Buffer | undefined;
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    const json = JSON.stringify(body);
    bytes = Buffer.from(json, 'utf8');
    if (variation.kind === 'raw-body') {
      switch (variation.body) {
        case 'bom':
          bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
          break;
        case 'invalid-utf8':
          bytes = Buffer.concat([bytes.subarray(0, Math.max(1, bytes.length - 2)), Buffer.from([0xc3, 0x28]), bytes.subarray(Math.max(1, bytes.length - 2))]);
          break;
        case 'latin1':
          headers['content-type'] = 'application/json; charset=latin1';
          bytes = Buffer.from(json, 'latin1');
          break;
        case 'utf16':
          headers['content-type'] = 'application/json; charset=utf-16le';
          bytes = Buffer.from(json, 'utf16le');
          break;
        case 'not-json':
          bytes = Buffer.from(json.slice(0, -1), 'utf8');
          break;
        case 'empty':
          bytes = Buffer.alloc(0);
          break;
        case 'top-level-array':
          bytes = Buffer.from(`[${json}]`, 'utf8');
          break;
        case 'text-plain':
          headers['content-type'] = 'text/plain';
          break;
        case 'deep':
          bytes = Buffer.from(`${'['.repeat(100_000)}${json}${']'.repeat(100_000)}`, 'utf8');
          break;
        case 'huge':
          bytes = Buffer.from(`[${json}${',1'.repeat(2 * 1024 * 1024 - json.length)}]`, 'utf8');
          break;
      }
    }
  }
  const label = `${endpoint.method} ${url} ${variation.kind === 'valid' ? '' : JSON.stringify(variation)} ${bytes ? bytes.toString('utf8').slice(0, 300) : ''}`;
  return { method: endpoint.method, url, headers, body: bytes, label, idempotencyKey };
}
