/**
 * The layering rules (.dependency-cruiser.cjs) hold for src/, and each rule really fails: a
 * small tree that breaks every one of them is cruised with the same configuration.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');

async function cruise(cwd: string): Promise<{ exitCode: number; output: string }> {
  try {
    const { stdout } = await run(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'err'], { cwd });
    return { exitCode: 0, output: stdout };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { exitCode: e.code ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const broken = mkdtempSync(path.join(tmpdir(), 'layering-'));
afterAll(() => rmSync(broken, { recursive: true, force: true }));

function file(relative: string, text: string): void {
  mkdirSync(path.dirname(path.join(broken, relative)), { recursive: true });
  writeFileSync(path.join(broken, relative), text);
}

describe('layering', () => {
  it('src/ keeps every rule', async () => {
    const { exitCode, output } = await cruise(ROOT);
    expect(output).toContain('no dependency violations found');
    expect(exitCode).toBe(0);
  }, 60_000);

  it('fails on a cycle and on each forbidden import', async () => {
    file('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }));
    file('src/protocol/schema.ts', "import { row } from '../pos/row.js';\nexport const schema = row;\n");
    file('src/pos/row.ts', "import { print } from '../printing/print.js';\nexport const row = print;\n");
    file('src/printing/print.ts', 'export const print = 1;\n');
    file('src/agent/a.ts', "import { g } from '../gateway/g.js';\nimport { d } from '../demo/d.js';\nexport const a = g + d;\n");
    file('src/gateway/g.ts', "import { r } from '../pos/row.js';\nexport const g = r;\n");
    file('src/demo/d.ts', 'export const d = 1;\n');
    file('src/config/c.ts', "import { a } from '../agent/a.js';\nexport const c = a;\n");
    file('src/logging.ts', "import { c } from './config/c.js';\nexport const log = c;\n");
    file('src/pos/x.ts', "import { y } from './y.js';\nexport const x = () => y;\n");
    file('src/pos/y.ts', "import { x } from './x.js';\nexport const y = () => x;\n");

    const { exitCode, output } = await cruise(broken);
    expect(exitCode).not.toBe(0);
    for (const rule of [
      'no-cycles',
      'protocol-imports-nothing-of-ours',
      'pos-and-printing-import-protocol-only',
      'agent-and-gateway-never-each-other',
      'gateway-loads-no-pos-layer',
      'only-the-top-imports-demo',
      'config-imports-protocol-only',
      'leaves-import-nothing-of-ours',
    ]) {
      expect(output, rule).toContain(`error ${rule}:`);
    }
  }, 60_000);
});
