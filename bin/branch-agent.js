#!/usr/bin/env node
// The installed entry point: runs the compiled CLI in dist/. From a source checkout, build first
// (`npm run build`) or run the TypeScript directly with `npx tsx src/cli.ts`.
/* global console, process, URL */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);

if (!existsSync(fileURLToPath(cli))) {
  console.error(
    `branch-agent: ${fileURLToPath(cli)} is missing: this copy has not been built.\n` +
      'Run `npm run build` in the project directory (or use a release made by scripts/make-release.sh).',
  );
  process.exit(1);
}

await import(cli.href);
