/**
 * The options of config.json as a list, read from the schemas (schema.ts) through their JSON
 * Schema: each option's path, type, default, description and environment variable. The
 * environment overrides are applied from it (the only place the configuration reads the
 * environment), and docs/configuration.md is generated from it.
 */
import { z } from 'zod';
import { configSchemas } from './schema.js';

export interface ConfigOption {
  /** `gateway.rateLimit.burst`, as segments. */
  path: string[];
  type: string;
  default?: unknown;
  description?: string;
  /** The environment variable that overrides it. */
  env?: string;
  required: boolean;
  /** Inside one of several shapes (the database's dialect): absent unless the file chose that shape. */
  inUnion: boolean;
}

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  env?: string;
}

function typeOf(node: JsonSchema): string {
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum) return node.enum.map((v) => JSON.stringify(v)).join(' | ');
  const variants = node.anyOf ?? node.oneOf;
  if (variants) return variants.map(typeOf).join(' | ');
  if (node.type === 'array') {
    const item = node.items ? typeOf(node.items) : 'any';
    return item.includes(' | ') ? `(${item})[]` : `${item}[]`;
  }
  return node.type === 'integer' ? 'integer' : (node.type ?? 'any');
}

function collect(node: JsonSchema, path: string[], required: boolean, inUnion: boolean, out: ConfigOption[]): void {
  const variants = node.anyOf ?? node.oneOf;
  if (node.properties) {
    for (const [key, child] of Object.entries(node.properties)) collect(child, [...path, key], node.required?.includes(key) ?? false, inUnion, out);
  } else if (variants?.some((v) => v.properties)) {
    for (const variant of variants) collect({ ...variant, description: variant.description ?? node.description }, path, required, true, out);
  } else {
    // An option of several shapes (poolSize of either dialect) is listed once, with every type it takes.
    const type = typeOf(node);
    const seen = out.find((o) => o.path.join('.') === path.join('.'));
    if (!seen) out.push({ path, type, default: node.default, description: node.description, env: node.env, required, inUnion });
    else if (!seen.type.split(' | ').includes(type)) seen.type += ` | ${type}`;
  }
}

/** Every option of both sections, in the schema's order. */
export function configOptions(): ConfigOption[] {
  const { agentConfigFields, gatewayConfigSchema } = configSchemas();
  const out: ConfigOption[] = [];
  for (const [section, schema] of [
    ['agent', agentConfigFields],
    ['gateway', gatewayConfigSchema],
  ] as const) {
    collect(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema, [section], false, false, out);
  }
  return out;
}

/** An environment variable's text as the option's type: a list is comma-separated (TRUST_PROXY). */
function fromText(type: string, value: string): unknown {
  if (type === 'number' || type === 'integer') return Number(value);
  if (type.endsWith('[]'))
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return value;
}

/**
 * The environment variables that override the file (secrets are better kept out of it). A
 * section the file does not have stays absent, and so does a shape it did not choose.
 */
export function applyEnvironment(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Record<string, unknown> {
  for (const option of configOptions()) {
    const value = option.env ? env[option.env] : undefined;
    if (!value) continue;
    let at: Record<string, unknown> | undefined = raw;
    for (const [i, key] of option.path.slice(0, -1).entries()) {
      if (at[key] === undefined && (i === 0 || option.inUnion)) {
        at = undefined;
        break;
      }
      at = (at[key] ??= {}) as Record<string, unknown>;
    }
    if (at) at[option.path.at(-1)!] = fromText(option.type, value);
  }
  return raw;
}
