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
    const work = mkdtempSync(path.join(tmpdir(), 'mapped-stack-'));
    try {
      mkdirSync(path.join(work, 'src'));
      writeFileSync(
        path.join(work, 'src', 'thrower.ts'),
        "export function first(): void {\n  second();\n}\n\nfunction second(): void {\n  throw new Error('from line 6');\n}\n",
      );
      const chunk = path.join(work, 'dist', 'chunk-TEST.js');
      await build({
        entryPoints: [path.join(work, 'src', 'thrower.ts')],
        outfile: chunk,
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
        {
          encoding: 'utf8',
        },
      );
      expect(thrown).toContain('chunk-TEST.js:1:');
      const err = Object.assign(new Error('from line 6'), { stack: thrown });
      const lines: string[] = [];
      createLogger({ level: 'info' }, capture(lines)).error({ err }, 'failed');
      const stack = (JSON.parse(lines[0]!) as { err: { stack: string } }).err.stack;
      expect(stack).toMatch(/^Error: from line 6\n/);
      expect(stack).toMatch(/at second \(src\/thrower\.ts:6:\d+\)/);
      expect(stack).toMatch(/at (Module\.)?first \(src\/thrower\.ts:2:\d+\)/);
      expect(stack).not.toContain('chunk-TEST.js');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
