/**
 * An HTTP route of the API as data: which operation it dispatches, where the operation's input
 * comes from, and how the answer is wrapped. The gateway registers every route the same way.
 */
import { z } from 'zod';
import { licenseKey } from '../../protocol/common.js';
import type { OperationDef } from '../../protocol/operation.js';

export interface RouteDef {
  /** The operation's name in OpenAPI, which generated clients name their methods after. */
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** Fastify path, with `:licenseKey` unless the body carries it. */
  url: string;
  /** Where the branch's licenseKey comes from: the path (default) or the JSON body. */
  licenseKeyIn?: 'path' | 'body';
  op: OperationDef;
  summary: string;
  tag: string;
  /** Where the input comes from besides the path: the query string or the JSON body. */
  from: 'query' | 'body';
  /** Path parameters other than licenseKey that are part of the operation's input. */
  pathInput?: readonly string[];
  /**
   * page: paginated list envelope; list: non-paginated; result: the operation's own object;
   * xml: the operation's `xml` text sent as application/xml (job id in X-Job-Id).
   */
  envelope: 'page' | 'list' | 'result' | 'xml';
  /** Some list envelopes leave jobId out, as the seed shows them (docs/api.md, Lists and paging). */
  jobId: boolean;
  /** A write's Idempotency-Key: required (the seed's nine writes) unless optional (printing). */
  idempotencyKey?: 'required' | 'optional';
  status?: number;
  /** Completes the job's input with what only the gateway knows (e.g. printer records). */
  prepare?: (ctx: RouteContext, params: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** Turns an operation result that is an error for the client (e.g. a printer failed) into one. */
  check?: (data: Record<string, unknown>, jobId: string) => void;
}

export interface RouteContext {
  userId: number;
  licenseKey: string;
  store: import('../store.js').GatewayStore;
}

export function route(def: RouteDef): RouteDef {
  return def;
}

function inputObject(def: RouteDef): z.ZodObject {
  if (!(def.op.input instanceof z.ZodObject)) throw new Error(`${def.op.name}: input must be an object schema`);
  return def.op.input;
}

export function pathSchema(def: RouteDef): z.ZodObject {
  const shape = inputObject(def).shape;
  return z.object({ ...(def.licenseKeyIn === 'body' ? {} : { licenseKey }), ...Object.fromEntries((def.pathInput ?? []).map((k) => [k, shape[k]!])) });
}

/**
 * The part of the operation's input that the client sends in the query or body: the input
 * itself unless path parameters complete it (then the merged input is checked again whole).
 */
export function payloadSchema(def: RouteDef): z.ZodType {
  if (def.licenseKeyIn === 'body') return inputObject(def).extend({ licenseKey });
  if (!def.pathInput?.length) return def.op.input;
  const shape = { ...inputObject(def).shape };
  for (const key of def.pathInput) delete shape[key];
  return z.object(shape);
}

/** The success response as OpenAPI shows it. */
export function successResponse(def: RouteDef): unknown {
  if (def.envelope !== 'xml') return responseSchema(def);
  return { description: 'the document; the job id is in the X-Job-Id header', content: { 'application/xml': { schema: z.string() } } };
}

export function responseSchema(def: RouteDef): z.ZodType {
  const output = def.op.output;
  if (def.envelope === 'xml') return output;
  // The handler puts the job's id into every result it answers.
  if (def.envelope === 'result') return output instanceof z.ZodObject ? output.extend({ jobId: z.string().describe('the job the agent ran') }) : output;
  const meta = z.object({
    ...(def.jobId ? { jobId: z.string() } : {}),
    workerId: z.string(),
    dispatchedAt: z.string().describe('when the gateway sent the job to the agent (ISO 8601)'),
  });
  return output instanceof z.ZodObject ? meta.extend(output.shape) : meta;
}
