/**
 * Every option of config.json is declared once, in src/config/schema.ts, with its default, its
 * meaning and its environment variable: docs/configuration.md is generated from it and current,
 * the environment reaches exactly the options that name a variable, and no module of src/ writes
 * a default of its own for an option the schema gives one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_DOC, renderConfigurationDoc } from '../../scripts/config-docs.js';
import { parseConfig } from '../../src/config/load.js';
import { configOptions } from '../../src/config/options.js';
import { agentDefaults, gatewayDefaults, posDatabase } from '../../src/config/schema.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const options = configOptions();

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? sourceFiles(file) : file.endsWith('.ts') ? [file] : [];
  });
}

const at = (value: unknown, keys: string[]): unknown => keys.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);

describe('the configuration', () => {
  it('docs/configuration.md is what `npm run docs:config` writes from the schema', () => {
    expect(readFileSync(path.join(ROOT, CONFIGURATION_DOC), 'utf8'), 'run npm run docs:config').toBe(renderConfigurationDoc());
  });

  it('says what every option means', () => {
    expect(options.length).toBeGreaterThan(50);
    expect(options.filter((o) => !o.description).map((o) => o.path.join('.'))).toEqual([]);
  });

  it('takes every environment variable an option names, and only where the file has the section', () => {
    const withEnv = options.filter((o) => o.env);
    expect(withEnv.map((o) => o.env).sort()).toEqual(
      [
        'AGENT_TOKEN',
        'GATEWAY_DATABASE_URL',
        'GATEWAY_URL',
        'HOST',
        'LOG_LEVEL',
        'NATS_URL',
        'PORT',
        'POS_DB_PASSWORD',
        'PUBLIC_URL',
        'TRUST_PROXY',
        'WEBHOOK_KEY',
      ].sort(),
    );
    const file = {
      agent: {
        licenseKey: 'TEST000000000001',
        token: 'from-file',
        gatewayUrl: 'http://file.example',
        database: { dialect: 'mssql', server: 'pos', authentication: { type: 'sql', user: 'sa', password: 'from-file' } },
      },
      gateway: {},
    };
    const values: Record<string, string> = {
      AGENT_TOKEN: 'from-env',
      GATEWAY_URL: 'http://env.example/',
      POS_DB_PASSWORD: 'secret-from-env',
      GATEWAY_DATABASE_URL: 'postgres://env/store',
      HOST: '0.0.0.0',
      PORT: '9090',
      LOG_LEVEL: 'debug',
      WEBHOOK_KEY: 'a2V5',
      NATS_URL: 'nats://env:4222',
      TRUST_PROXY: '10.0.0.5, 10.1.0.0/16',
      PUBLIC_URL: 'https://api.example.com/pos',
    };
    const config = parseConfig(file, values);
    for (const o of withEnv) {
      const text = values[o.env!]!;
      const expected = o.type === 'integer' || o.type === 'number' ? Number(text) : o.type.endsWith('[]') ? text.split(',').map((s) => s.trim()) : text;
      expect(at(config, o.path), o.env).toEqual(expected);
    }
    // A section the file lacks is not made up from the environment; nor is a shape it did not choose.
    expect(parseConfig({}, values)).toEqual({});
    const postgres = parseConfig({ agent: { ...file.agent, database: { dialect: 'postgres', url: 'postgres://pos' } } }, values).agent!;
    expect(postgres.database).not.toHaveProperty('authentication');
  });

  it('lists each default the schema declares, and the modules read them from it', () => {
    const gateway = gatewayDefaults();
    const agent = agentDefaults();
    const database = posDatabase({ dialect: 'mssql', server: 'pos', authentication: { type: 'sql', user: 'sa', password: '' } });
    for (const o of options.filter((x) => x.default !== undefined && typeof x.default !== 'object')) {
      const [section, ...rest] = o.path;
      const value = section === 'gateway' ? at(gateway, rest) : rest[0] === 'database' ? at(database, rest.slice(1)) : at(agent, rest);
      expect(value, o.path.join('.')).toEqual(o.default);
    }
  });

  it('has no default written a second time in src/: no module falls back to a value of its own', () => {
    const names = [...new Set(options.filter((o) => o.default !== undefined).map((o) => o.path.at(-1)!))];
    // `opts.jobTimeoutMs ?? 30_000`: a default beside the schema's.
    const fallback = new RegExp(`\\.(${names.join('|')})\\s*\\?\\?\\s*(-?\\d[\\d_]*|'[^']*'|true|false|\\{)`, 'g');
    const found: string[] = [];
    for (const file of sourceFiles(path.join(ROOT, 'src'))) {
      if (file.endsWith(path.join('config', 'schema.ts'))) continue;
      for (const match of readFileSync(file, 'utf8').matchAll(fallback)) {
        // SQL Server's own port, which the schema leaves to the server (a named instance has none).
        if (match[0].startsWith('.port') && match[2] === '1433') continue;
        found.push(`${path.relative(ROOT, file)}: ${match[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
