/**
 * The agent release's code: src/cli.ts bundled by esbuild into <out>/dist/ (one file per lazily
 * loaded part: each database driver, the printing stack, the doctor, the installer), plus the
 * few packages that must stay files in <out>/node_modules/, and <out>/THIRD-PARTY-LICENSES.txt
 * with the licences of the packages bundled. The gateway, the demo and the embedded PostgreSQL
 * are left out: their commands say which release has them.
 *
 * Why a bundle: the production node_modules of the whole project is 150 MB unpacked, and an
 * agent that loads hundreds of small files idles with more memory than one that loads a few
 * large ones.
 *
 * Usage: tsx scripts/bundle-agent.ts <out>
 */
import { build, type Plugin } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Stay files: pino starts its transports (pino-roll, the log file) in worker threads that load
 * them by name.
 */
const EXTERNAL_PACKAGES = ['pino', 'pino-roll'];

/**
 * Packages copied as one bundled file with their dependencies inside: pino-roll uses a few
 * functions of date-fns, whose package is 28 MB.
 */
const SELF_CONTAINED = ['pino-roll'];

/** Optional peers that are never installed here: their require() is guarded by the packages. */
const ABSENT_OPTIONAL = ['pg-native', 'bufferutil', 'utf-8-validate'];

/** What src/cli.ts imports for the gateway side; in the agent release the commands say so. */
const GATEWAY_ONLY = /^\.\/(gateway|demo|embedded-postgres)\//;

const leaveOutGatewaySide: Plugin = {
  name: 'leave-out-gateway-side',
  setup(b) {
    b.onResolve({ filter: GATEWAY_ONLY }, (args) =>
      args.importer.endsWith(path.join('src', 'cli.ts')) ? { path: args.path, namespace: 'gateway-side' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'gateway-side' }, (args) => ({
      contents: `throw new Error('${args.path} is not in the agent release: the gateway, the demo and the keys commands run from the npm package or a source checkout');`,
      loader: 'js',
    }));
    // tedious loads Azure AD authentication at start-up; the agent's config offers SQL and NTLM
    // logins only, and the Azure libraries would be most of the release.
    b.onResolve({ filter: /^@azure\/(identity|keyvault-keys)$/ }, (args) => ({ path: args.path, namespace: 'azure' }));
    b.onLoad({ filter: /.*/, namespace: 'azure' }, () => ({
      contents:
        "module.exports = new Proxy({}, { get(_, key) { if (key === '__esModule') return false; return class { constructor() { throw new Error('Azure AD logins are not supported by the branch agent'); } }; } });",
      loader: 'js',
    }));
  },
};

/** The package's directory as Node resolves it from `from` (its package.json's folder). */
function packageDir(name: string, from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`${name} is not installed (npm ci first)`);
  }
}

/**
 * Copies the packages and everything they depend on, from this checkout's node_modules (as the
 * lock file installed it), flattened into out/node_modules. Versions that differ between two
 * dependents stay nested under the one that needs the other. Answers the SELF_CONTAINED ones
 * found, to be bundled instead of copied.
 */
function copyPackages(names: string[], outModules: string) {
  const placed = new Map<string, string>();
  const visit = (name: string, from: string, into: string) => {
    const dir = packageDir(name, from);
    const version = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    const top = placed.get(name);
    if (top === version) return;
    const target = top === undefined ? path.join(outModules, name) : path.join(into, 'node_modules', name);
    if (top === undefined) placed.set(name, version);
    else if (existsSync(target)) return;
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { main?: string; dependencies?: Record<string, string> };
    if (SELF_CONTAINED.includes(name)) {
      selfContained.push({ dir, target, pkg });
      return;
    }
    cpSync(dir, target, { recursive: true, dereference: true, filter: (src) => !src.slice(dir.length).includes(`${path.sep}node_modules`) });
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, target);
  };
  const selfContained: Array<{ dir: string; target: string; pkg: { main?: string; dependencies?: Record<string, string> } }> = [];
  for (const name of names) visit(name, ROOT, outModules);
  return selfContained;
}

async function bundlePackage({ dir, target, pkg }: { dir: string; target: string; pkg: { main?: string; dependencies?: Record<string, string> } }) {
  const main = pkg.main ?? 'index.js';
  await build({
    entryPoints: [path.join(dir, main)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20.12',
    outfile: path.join(target, main),
    logLevel: 'warning',
  });
  cpSync(path.join(dir, 'LICENSE'), path.join(target, 'LICENSE'));
  writeFileSync(path.join(target, 'package.json'), JSON.stringify({ ...pkg, dependencies: {} }, null, 2));
}

/** A package's own licence files, as it ships them. */
const LICENSE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt|markdown))?$/i;

/**
 * The licences of the packages bundled into dist/ (the packages left as files keep theirs in
 * node_modules/): minified, their copyright notices are gone from the code, and MIT, BSD and
 * ISC ask for them in every copy. A package that ships no licence file is listed with what its
 * package.json says, so none is left out silently.
 */
function thirdPartyLicenses(inputs: string[]): string {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const name = /^(@[^/]+\/[^/]+|[^/]+)/.exec(input.slice(at + 'node_modules/'.length))![1]!;
    dirs.add(path.resolve(input.slice(0, at), 'node_modules', name)); // esbuild names inputs from the working directory
  }
  const sections = [...dirs].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string; author?: unknown };
    const files = readdirSync(dir).filter((f) => LICENSE_FILE.test(f));
    const author = typeof pkg.author === 'string' ? pkg.author : (pkg.author as { name?: string } | undefined)?.name;
    const text =
      files.length > 0
        ? files.map((f) => readFileSync(path.join(dir, f), 'utf8').trim()).join('\n\n')
        : `The package ships no licence file; its package.json says: license ${pkg.license ?? 'none'}${author ? `, author ${author}` : ''}.`;
    return `${pkg.name} ${pkg.version} (${pkg.license ?? 'no license field'})\n${'-'.repeat(72)}\n${text}\n`;
  });
  return `Packages bundled into dist/ by scripts/bundle-agent.ts, with their licences.\n\n${sections.join('\n\n')}`;
}

const out = process.argv[2];
if (!out) throw new Error('usage: tsx scripts/bundle-agent.ts <out>');
rmSync(path.join(out, 'dist'), { recursive: true, force: true });
rmSync(path.join(out, 'node_modules'), { recursive: true, force: true });

const result = await build({
  entryPoints: [path.join(ROOT, 'src/cli.ts')],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.12',
  outdir: path.join(out, 'dist'),
  // Flat: SQL_DIR and VERSION are found relative to each file, one level up.
  chunkNames: 'chunk-[hash]',
  // The sources stay in the heap as long as the agent runs: minified, the idle agent keeps 0.4 MB
  // less. Functions keep their names for stack traces, which the logger maps back to the
  // TypeScript through the linked maps (src/source-mapped-stacks.ts).
  minifySyntax: true,
  minifyWhitespace: true,
  minifyIdentifiers: true,
  keepNames: true,
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'linked',
  external: [...EXTERNAL_PACKAGES, ...ABSENT_OPTIONAL],
  // CommonJS packages inside an ES module bundle still call require().
  banner: { js: "import { createRequire as __agentRequire } from 'node:module'; const require = __agentRequire(import.meta.url);" },
  plugins: [leaveOutGatewaySide],
  logLevel: 'warning',
  metafile: true,
});

mkdirSync(path.join(out, 'node_modules'), { recursive: true });
for (const pkg of copyPackages(EXTERNAL_PACKAGES, path.join(out, 'node_modules'))) await bundlePackage(pkg);
writeFileSync(path.join(out, 'THIRD-PARTY-LICENSES.txt'), thirdPartyLicenses(Object.keys(result.metafile.inputs)));

const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
console.log(`agent bundle: ${(bytes / 1048576).toFixed(1)} MB in ${Object.keys(result.metafile.outputs).length} files`);
