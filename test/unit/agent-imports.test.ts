/**
 * What the agent loads just by starting: an ES import of node:http (src/agent/node-http.ts)
 * pulled undici and Node's web streams into every agent on Node 22 and later, about 3 MB of its
 * idle memory for code it never runs. CI runs this file on Node 24 too, where that happens.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

// What `branch-agent run` loads: every module src/cli.ts imports by name (read from the file, so
// a new import is checked too; cli.ts has no bare `import './x.js'`), then the agent's service,
// which `run` imports itself.
const cliImports = [...readFileSync('src/cli.ts', 'utf8').matchAll(/^import (?!type )[^;]* from '([^']+)';$/gm)]
  .map((m) => m[1]!)
  .map((from) => (from.startsWith('./') ? `./src/${from.slice(2).replace(/\.js$/, '.ts')}` : from));
const AGENT_RUN_MODULES = [...cliImports, './src/agent/service.ts'];

it("loads neither undici nor Node's web streams into the agent", () => {
  expect(cliImports).toEqual(expect.arrayContaining(['commander', './src/logging.ts', './src/config/load.ts']));
  // Only what the agent's modules add: Node 20 loads a little of its web streams for tsx itself.
  const script = `const before = new Set(process.moduleLoadList);
    ${AGENT_RUN_MODULES.map((m) => `await import(${JSON.stringify(m)});`).join('')}
    process.stdout.write(JSON.stringify(process.moduleLoadList.filter((m) => !before.has(m) && /undici|webstreams/.test(m))));`;
  const loaded: unknown = JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }));
  expect(loaded).toEqual([]);
}, 30_000);
