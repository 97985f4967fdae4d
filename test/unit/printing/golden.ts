import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../golden/printing');

function hexAround(bytes: Buffer, offset: number): string {
  return bytes
    .subarray(Math.max(0, offset - 8), offset + 8)
    .toString('hex')
    .replace(/(..)/g, '$1 ');
}

/** Compares with test/golden/printing/<name>.bin; UPDATE_GOLDEN=1 rewrites the file instead. */
export function expectGolden(name: string, actual: Buffer): void {
  const path = join(GOLDEN_DIR, `${name}.bin`);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  expect(existsSync(path), `${path} missing: run with UPDATE_GOLDEN=1 to create it`).toBe(true);
  const expected = readFileSync(path);
  if (expected.equals(actual)) return;
  let offset = 0;
  while (offset < Math.min(expected.length, actual.length) && expected[offset] === actual[offset]) offset++;
  expect.fail(
    `${name}.bin differs at byte ${offset} (expected ${expected.length} bytes, got ${actual.length})\n` +
      `expected: ${hexAround(expected, offset)}\nactual:   ${hexAround(actual, offset)}\n` +
      'If the change is intended, rerun with UPDATE_GOLDEN=1 and review the diff.',
  );
}
