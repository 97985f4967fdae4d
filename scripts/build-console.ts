/**
 * The fleet console's static files (console/ bundled by esbuild into dist/console/), which the
 * gateway serves at /consola. `npm run build` and `npm start` run it, and the tests' global setup
 * once per run: about a second, so nothing else has to remember to build it.
 *
 * Asset names carry a hash of their content, so the gateway lets browsers cache them for good;
 * index.html names them. Each file is written to a temporary name and renamed, so a gateway
 * reading the folder while another build runs (CI runs two test suites side by side) never reads
 * half a file.
 *
 * Usage: tsx scripts/build-console.ts [out]
 */
import { build } from 'esbuild';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = path.join(ROOT, 'console');
export const CONSOLE_OUT = path.join(ROOT, 'dist', 'console');

/** What the build wrote, by the name index.html uses for it. */
export type ConsoleFiles = Map<string, Buffer>;

function hashed(name: string, body: Uint8Array): string {
  const { name: stem, ext } = path.parse(name);
  return `${stem}-${createHash('sha256').update(body).digest('hex').slice(0, 10)}${ext}`;
}

/** Builds into memory: index.html and its hashed assets. */
export async function bundleConsole(): Promise<ConsoleFiles> {
  const result = await build({
    entryPoints: { app: path.join(SOURCE, 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: path.join(SOURCE, 'out'),
    write: false,
    logLevel: 'silent',
  });
  const files: ConsoleFiles = new Map();
  let html = readFileSync(path.join(SOURCE, 'index.html'), 'utf8');
  const assets = [
    ...result.outputFiles.map((f) => ({ name: path.basename(f.path), body: Buffer.from(f.contents) })),
    { name: 'icon.svg', body: readFileSync(path.join(SOURCE, 'icon.svg')) },
  ];
  for (const { name, body } of assets) {
    const final = hashed(name, body);
    if (!html.includes(`"${name}"`)) throw new Error(`console/index.html does not name ${name}`);
    html = html.replace(`"${name}"`, `"${final}"`);
    files.set(final, body);
  }
  files.set('index.html', Buffer.from(html));
  return files;
}

/** Builds into `out` (dist/console/ unless given), leaving there only what this build made. */
export async function buildConsole(out = CONSOLE_OUT): Promise<ConsoleFiles> {
  const files = await bundleConsole();
  mkdirSync(out, { recursive: true });
  for (const [name, body] of files) {
    const temporary = path.join(out, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    writeFileSync(temporary, body);
    renameSync(temporary, path.join(out, name));
  }
  for (const name of readdirSync(out)) if (!files.has(name) && !name.endsWith('.tmp')) rmSync(path.join(out, name), { force: true });
  return files;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = process.argv[2] ? path.resolve(process.argv[2]) : CONSOLE_OUT;
  const files = await buildConsole(out);
  console.log(`console built into ${path.relative(process.cwd(), out) || '.'}: ${[...files.keys()].join(', ')}`);
}
