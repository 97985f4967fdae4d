/**
 * Stack traces that point at the TypeScript sources, for the bundled agent, without Node's own
 * source-map support: that reads and keeps every loaded chunk's map from start-up on (1.3 MB
 * of an idle agent's heap). Here a chunk's map is read only when an error from it is logged.
 */
import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { fileURLToPath } from 'node:url';

/** `file:///…/dist/chunk-X.js:1:2345`, inside parentheses or after `at `. */
const FRAME_POSITION = /(file:\/\/\/[^\s()]+\.js):(\d+):(\d+)/g;

/** Maps read so far by file URL; null when the file has none. Errors are rare: this stays small. */
const maps = new Map<string, SourceMap | null>();

function mapOf(fileUrl: string): SourceMap | null {
  let map = maps.get(fileUrl);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(fileUrl)}.map`, 'utf8')) as SourceMapPayload);
    } catch {
      map = null;
    }
    maps.set(fileUrl, map);
  }
  return map;
}

/**
 * The source's path from the project's root (`src/agent/runner.ts`, `node_modules/pg/lib/…`),
 * not the build machine's. A package's own `src/` stays under its node_modules folder.
 */
function projectPath(source: string): string {
  const packaged = source.lastIndexOf('/node_modules/');
  const at = packaged >= 0 ? packaged : source.lastIndexOf('/src/');
  return at >= 0 ? source.slice(at + 1) : source;
}

/** The stack with each position in a mapped file replaced by its source's; the rest unchanged. */
export function sourceMappedStack(stack: string): string {
  if (process.sourceMapsEnabled) return stack;
  return stack.replace(FRAME_POSITION, (position, fileUrl: string, line: string, column: string) => {
    const entry = mapOf(fileUrl)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry)) return position;
    return `${projectPath(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
