import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The conformance and fidelity docs prove each claim by naming a test: `e2e/shifts: *title*`.
 * A renamed or deleted test would leave a claim that nothing proves, so every cited title must
 * still be a test in a file of that name (or its split parts, `accounts-*.test.ts`).
 */
const DOCS = ['docs/SEED-CONFORMANCE.md', 'docs/SR-FIDELITY.md'];
const CITATION =
  /\b(e2e|integration|unit|cluster|browser|tsql|mssql)\/([a-z0-9-]+):((?:[^|;]|;(?!\s*(?:e2e|integration|unit|cluster|browser|tsql|mssql)\/))*)/g;
const TITLE = /\*([^*]+)\*/g;

function citations(doc: string): { file: string; title: string }[] {
  const found: { file: string; title: string }[] = [];
  for (const match of readFileSync(doc, 'utf8').matchAll(CITATION)) {
    const [, area, name, rest] = match;
    const cut = rest!.search(/\b(e2e|integration|unit|cluster|browser|tsql|mssql)\/[a-z0-9-]+:/);
    for (const title of (cut < 0 ? rest! : rest!.slice(0, cut)).matchAll(TITLE))
      found.push({ file: `${area}/${name}`, title: title[1]!.replace(/\s*\n\s*/g, ' ') });
  }
  return found;
}

function sourcesOf(cited: string): string {
  const [area, name] = cited.split('/') as [string, string];
  const files = readdirSync(join('test', area)).filter((f) => f === `${name}.test.ts` || f.startsWith(`${name}-`));
  return files.map((f) => readFileSync(join('test', area, f), 'utf8').replace(/\\(['"`])/g, '$1')).join('\n');
}

/**
 * Titles written once for many cases (`it.each`, template literals) as patterns: `%s`, `$name`
 * and `${…}` match any text that is itself written in the file (the case's label).
 */
function templates(source: string): RegExp[] {
  const literals = source.match(/'[^'\n]*'|"[^"\n]*"|`[^`]*`/g) ?? [];
  return literals
    .map((literal) => literal.slice(1, -1))
    .map((text) => text.split(/%[sdifjo#]|\$\{[^}]*\}|\$[a-zA-Z.0-9_]+/))
    .filter((parts) => parts.length > 1 && parts.join('').trim().length > 0)
    .map((parts) => new RegExp(`^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('(.+)')}$`));
}

function proves(source: string, patterns: RegExp[], title: string): boolean {
  const filled = patterns.map((pattern) => pattern.exec(title)).filter((match) => match !== null);
  // A `%j` label is JSON, written in the file as an object literal: compare without quotes and spaces.
  const squeeze = (text: string) => text.replace(/[\s'"]/g, '');
  const squeezed = squeeze(source);
  if (filled.some((match) => match.slice(1).every((value) => source.includes(value) || squeezed.includes(squeeze(value))))) return true;
  return title
    .split('…')
    .map((piece) => piece.trim())
    .filter(Boolean)
    .every((piece) => source.includes(piece));
}

describe('the docs cite tests and files that exist', () => {
  it('every test docs/SEED-CONFORMANCE.md names is a test of the file it names', () => {
    const cited = citations('docs/SEED-CONFORMANCE.md');
    expect(cited.length).toBeGreaterThan(100);
    const missing = cited.filter(({ file, title }) => {
      const source = sourcesOf(file);
      return !proves(source, templates(source), title);
    });
    expect(missing).toEqual([]);
  });

  for (const doc of DOCS) {
    it(`every file ${doc} names exists`, () => {
      const paths = [...readFileSync(doc, 'utf8').matchAll(/`((?:src|test|sql|docs|scripts|bench)\/[\w./-]+\.\w+)`/g)].map((m) => m[1]!);
      expect(paths.length).toBeGreaterThan(0);
      expect(paths.filter((path) => !existsSync(path))).toEqual([]);
    });
  }
});
