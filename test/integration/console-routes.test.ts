/**
 * How the gateway serves the fleet console (src/gateway/console/routes.ts): over real HTTP,
 * both paths, with its Content-Security-Policy and caching, and nothing when it is not built.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleConsole, type ConsoleFiles } from '../../scripts/build-console.js';
import { CONSOLE_PATHS, CONTENT_SECURITY_POLICY, consoleRoutes } from '../../src/gateway/console/routes.js';

let files: ConsoleFiles;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  files = await bundleConsole();
  const dir = mkdtempSync(path.join(tmpdir(), 'console-'));
  for (const [name, body] of files) writeFileSync(path.join(dir, name), body);
  app = Fastify();
  await app.register(consoleRoutes, { dir });
  url = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app?.close();
});

it('serves the page at /consola/ and /console/, sending a bare path to the one with a slash', async () => {
  for (const base of CONSOLE_PATHS) {
    const bare = await fetch(`${url}${base}`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(new URL(bare.headers.get('location')!, `${url}${base}`).href).toBe(`${url}${base}/`);
    const page = await fetch(`${url}${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(await page.text()).toBe(files.get('index.html')!.toString());
  }
  expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
  expect(CONTENT_SECURITY_POLICY).toContain("require-trusted-types-for 'script'");
  expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe');
});

it('serves the assets named by their content, cached for good, and nothing else', async () => {
  const script = [...files.keys()].find((name) => name.endsWith('.js'))!;
  const res = await fetch(`${url}/consola/${script}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect(Buffer.from(await res.arrayBuffer()).equals(files.get(script)!)).toBe(true);
  for (const missing of ['/consola/app.js', '/consola/../package.json', '/consola/index.html'])
    expect((await fetch(`${url}${missing}`)).status, missing).toBe(404);
});

it('serves nothing, and says why in the log, when the console was not built', async () => {
  const lines: string[] = [];
  const bare = Fastify({ loggerInstance: pino({ level: 'warn' }, { write: (line: string) => lines.push(line) }) });
  await bare.register(consoleRoutes, { dir: mkdtempSync(path.join(tmpdir(), 'console-none-')) });
  const res = await bare.inject({ method: 'GET', url: '/consola/' });
  expect(res.statusCode).toBe(404);
  expect(lines.join('')).toContain('the fleet console is not built (npm run build)');
  await bare.close();
});
