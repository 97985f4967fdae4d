/**
 * node:http and node:https for the agent, as CommonJS exports. An ES import of node:http builds a
 * namespace of every export, and on Node 22 and later that evaluates its lazy WebSocket export,
 * which loads undici (Node's fetch) into an agent that never uses it: about 3 MB resident in the
 * idle agent, measured with bench/agent-memory.ts. test/unit/agent-imports.test.ts keeps it out.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const http = require('node:http') as typeof import('node:http');
export const https = require('node:https') as typeof import('node:https');
