/**
 * Step 7 of the installer (docs/install.md): it keeps the newest `--keep` releases (3) under
 * <prefix>/releases, newest by version (9.0.10 after 9.0.9), never the new release or the one
 * it replaced, which a rollback needs; an interrupted install's staging folder goes too.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { layoutOf, pruneReleases, type Layout } from '../../src/agent/installer/layout.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A prefix holding these releases (each with a file in it), and a staging folder left by an interrupted install. */
function prefixWith(versions: string[]): Layout {
  const layout = layoutOf(mkdtempSync(path.join(tmpdir(), 'branch-agent-prune-')));
  dirs.push(layout.prefix);
  for (const version of versions) {
    mkdirSync(path.join(layout.releases, version, 'bin'), { recursive: true });
    writeFileSync(path.join(layout.releases, version, 'bin', 'branch-agent.js'), '');
  }
  mkdirSync(path.join(layout.releases, '.staging-9.0.11-123'));
  return layout;
}

const left = (layout: Layout) => readdirSync(layout.releases).sort();

it('keeps the newest three of five releases, by version', () => {
  // Written in an order that is neither the versions' nor the text's.
  const layout = prefixWith(['9.0.9', '9.0.10', '9.0.2', '9.1.0', '9.0.11']);
  const removed = pruneReleases(layout, 3, ['9.1.0', '9.0.11']);
  expect(removed).toEqual(['9.0.2', '9.0.9']);
  expect(left(layout)).toEqual(['9.0.10', '9.0.11', '9.1.0']);
  for (const version of removed) expect(existsSync(path.join(layout.releases, version))).toBe(false);
});

it('never removes the current release or the previous one, however old', () => {
  // Upgraded to 9.0.2 from 9.0.1 (a rollout back to older releases): both stay, the newest one besides them fills the third place.
  const layout = prefixWith(['9.0.1', '9.0.2', '9.0.9', '9.0.10', '9.1.0']);
  const removed = pruneReleases(layout, 3, ['9.0.2', '9.0.1']);
  expect(removed).toEqual(['9.0.9', '9.0.10']);
  expect(left(layout)).toEqual(['9.0.1', '9.0.2', '9.1.0']);
});

it('removes nothing while there are no more releases than it keeps', () => {
  const layout = prefixWith(['9.0.1', '9.0.2', '9.0.3']);
  expect(pruneReleases(layout, 3, ['9.0.3', '9.0.2'])).toEqual([]);
  expect(left(layout)).toEqual(['9.0.1', '9.0.2', '9.0.3']);
});
