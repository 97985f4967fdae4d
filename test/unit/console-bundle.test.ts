/**
 * The fleet console's build (scripts/build-console.ts): at most 100 KB gzipped, everything a
 * file of its own (the CSP allows no inline script or style), assets named by their content.
 */
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { bundleConsole } from '../../scripts/build-console.js';

const BUDGET = 100 * 1024;

it('fits in 100 KB gzipped, with no inline script or style', async () => {
  const files = await bundleConsole();
  const gzipped = [...files].map(([name, body]) => [name, gzipSync(body, { level: 9 }).length] as const);
  const total = gzipped.reduce((sum, [, size]) => sum + size, 0);
  console.log(
    `fleet console: ${gzipped.map(([name, size]) => `${name} ${(size / 1024).toFixed(1)} KB`).join(', ')}; ${(total / 1024).toFixed(1)} KB gzipped in all`,
  );
  expect(total).toBeLessThanOrEqual(BUDGET);

  const html = files.get('index.html')!.toString();
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  expect(scripts).toHaveLength(1);
  expect(scripts[0]![1]).toMatch(/\bsrc="app-[0-9a-f]{10}\.js"/);
  expect(scripts[0]![2]).toBe('');
  expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
  for (const name of files.keys()) expect(name).toMatch(/^(index\.html|[a-z]+-[0-9a-f]{10}\.(js|css|svg))$/);
  for (const [name] of files) if (name !== 'index.html') expect(html).toContain(`"${name}"`);
});
