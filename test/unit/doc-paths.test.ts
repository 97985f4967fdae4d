/**
 * The README and docs/ name source files, tests and folders of this repository as their
 * evidence (`src/gateway/idempotency.ts`, `test/e2e/exactly-once.test.ts`). A file moved or
 * renamed would leave the page pointing at nothing, so every such path must exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const PAGES = [
  'README.md',
  ...readdirSync(new URL('docs/', ROOT))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
/** A path of ours in code font, without placeholders or wildcards: `src/…`, `test/…` and the like. */
const PATH = /`((?:src|test|scripts|bench|sql|docs|console|service-install)\/[^`\s<>*{}…]+)`/g;

it('names only files and folders that exist', () => {
  const missing: string[] = [];
  let named = 0;
  for (const page of PAGES) {
    for (const [, path] of readFileSync(new URL(page, ROOT), 'utf8').matchAll(PATH)) {
      named++;
      if (!existsSync(new URL(path!, ROOT))) missing.push(`${page}: ${path}`);
    }
  }
  expect(named).toBeGreaterThan(50);
  expect(missing).toEqual([]);
});
