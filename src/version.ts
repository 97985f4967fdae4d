import { readFileSync } from 'node:fs';

/** The release version, from package.json (the installer names releases after it). */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
