import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging.js';

function capture(lines: string[]): Writable {
  return new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
}

describe('logs', () => {
  it('never carry tokens, passwords, API keys or database URLs', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info' }, capture(lines));
    log.info(
      { token: 'agt_secret1', config: { token: 'agt_secret2', database: { url: 'postgres://u:pw3@h/db', authentication: { password: 'pw4' } } } },
      'start',
    );
    log.info({ req: { headers: { 'x-api-key': 'key_secret5', authorization: 'Bearer agt_secret6' } } }, 'request');
    const text = lines.join('');
    expect(lines).toHaveLength(2);
    for (const secret of ['agt_secret1', 'agt_secret2', 'pw3', 'pw4', 'key_secret5', 'agt_secret6']) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });

  it("point an error's stack at the TypeScript source of a minified, source-mapped file", async () => {
    const { thrown, stack } = await loggedStack({
      'src/thrower.ts': "export function first(): void {\n  second();\n}\n\nfunction second(): void {\n  throw new Error('from line 6');\n}\n",
    });
    expect(thrown).toContain('chunk-TEST.js:1:');
    expect(stack).toMatch(/^Error: from line 6\n/);
    expect(stack).toMatch(/at second \(src\/thrower\.ts:6:\d+\)/);
    expect(stack).toMatch(/at (Module\.)?first \(src\/thrower\.ts:2:\d+\)/);
    expect(stack).not.toContain('chunk-TEST.js');
  });

  it("keep a package's own src/ folder under node_modules", async () => {
    const { stack } = await loggedStack({
      'src/thrower.ts': "import { inner } from '../node_modules/pkg/src/inner';\nexport function first(): void {\n  inner();\n}\n",
      'node_modules/pkg/src/inner.ts': "export function inner(): void {\n  throw new Error('in a package');\n}\n",
    });
    expect(stack).toMatch(/at inner \(node_modules\/pkg\/src\/inner\.ts:2:\d+\)/);
    expect(stack).toMatch(/at (Module\.)?first \(src\/thrower\.ts:3:\d+\)/);
  });
});

/**
 * Writes the files (paths from a temp folder), bundles src/thrower.ts into a minified chunk with
 * a linked map, runs its `first()` and answers the stack thrown and the stack the logger wrote.
 */
async function loggedStack(files: Record<string, string>): Promise<{ thrown: string; stack: string }> {
  const work = mkdtempSync(path.join(tmpdir(), 'mapped-stack-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
      writeFileSync(path.join(work, file), text);
    }
    const chunk = path.join(work, 'dist', 'chunk-TEST.js');
    await build({
      entryPoints: [path.join(work, 'src', 'thrower.ts')],
      outfile: chunk,
      bundle: true,
      format: 'esm',
      minifyWhitespace: true,
      sourcemap: 'linked',
      logLevel: 'silent',
    });
    // Thrown by a plain Node.js, as the released agent runs: vitest would map the stack itself.
    const thrown = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `try { (await import(${JSON.stringify(pathToFileURL(chunk).href)})).first(); } catch (e) { process.stdout.write(e.stack); }`,
      ],
      { encoding: 'utf8' },
    );
    const err = Object.assign(new Error('logged'), { stack: thrown });
    const lines: string[] = [];
    createLogger({ level: 'info' }, capture(lines)).error({ err }, 'failed');
    return { thrown, stack: (JSON.parse(lines[0]!) as { err: { stack: string } }).err.stack };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
