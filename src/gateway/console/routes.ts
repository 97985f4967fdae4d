/**
 * The fleet console (issue 32): the static page `npm run build` makes in dist/console/, served at
 * /consola/ and /console/ without a key (the page asks for one and sends it with each API call,
 * as any client does). Read into memory once: a few files, small enough. A strict
 * Content-Security-Policy says the page runs only its own script and style, talks only to this
 * origin, and never turns a string into HTML (Trusted Types): what branches send is shown as text.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** dist/console/ of the package, from src/gateway/console/ (tsx) and dist/gateway/console/ (built) alike. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../../dist/console/', import.meta.url));

export const CONSOLE_PATHS = ['/consola', '/console'] as const;

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

export async function consoleRoutes(app: FastifyInstance, { dir = CONSOLE_DIR }: { dir?: string } = {}): Promise<void> {
  if (!existsSync(join(dir, 'index.html'))) {
    app.log.warn({ dir }, 'the fleet console is not built (npm run build): /consola is not served');
    return;
  }
  const files = new Map(
    readdirSync(dir)
      .filter((name) => TYPES[extname(name)])
      .map((name) => [name, readFileSync(join(dir, name))]),
  );
  for (const base of CONSOLE_PATHS) {
    // Relative, so the page works under whatever prefix a proxy puts the gateway.
    app.get(base, { schema: { hide: true } }, (_request, reply) =>
      reply
        .code(308)
        .header('location', `${base.slice(1)}/`)
        .send(),
    );
    for (const [name, body] of files) {
      // Asset names carry their content's hash (scripts/build-console.ts): cached for good.
      const cache = name === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable';
      app.get(name === 'index.html' ? `${base}/` : `${base}/${name}`, { schema: { hide: true } }, (_request, reply) =>
        reply.headers({ ...HEADERS, 'content-type': TYPES[extname(name)], 'cache-control': cache }).send(body),
      );
    }
  }
}
