/**
 * The whole system for end-to-end tests: a real gateway on a loopback port, real agents over a
 * real WebSocket, each branch on its own real POS database (PostgreSQL, or SQL Server in the
 * `mssql` project).
 */
import pino from 'pino';
import { DEMO_PRINTER_RULE } from '../../src/demo/printers.js';
import { startStack, waitForAgents, type Stack, type StackOptions } from '../../src/demo/stack.js';
import { newGatewayDatabase, newPosDatabase, openPosDb } from './databases.js';
import { startLinkProxy, type LinkProxy } from './link-proxy.js';
import type { PosTemplate } from './templates.js';
import type { PosConnection, PosDbConfig } from '../../src/pos/db.js';

export const BRANCH = 'TEST000000000001';
export const STRICT_BRANCH = 'TEST000000000002';
export const OTHER_USERS_BRANCH = 'TEST000000000003';
export const API_KEY = 'test-key';
export const OTHER_API_KEY = 'test-key-2';

export interface TestStack extends Stack {
  /** Direct connections to each branch's POS database, for asserting state. */
  pos: Map<string, PosConnection>;
  /** Each branch's POS database, for a second, independent connection. */
  posConfigs: Map<string, PosDbConfig>;
  /** The gateway's store, for asserting what it holds. */
  gatewayDatabaseUrl: string;
  /** Each branch's link to the gateway, when the stack was started with `links`. */
  links: Map<string, LinkProxy>;
  /** Each agent's link to its POS database, when the stack was started with `posLinks` (PostgreSQL only). */
  posLinks: Map<string, LinkProxy>;
  api(method: string, path: string, opts?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<ApiResponse>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  body: any;
  text: string;
}

export async function startTestStack(
  opts: {
    agent?: StackOptions['agent'];
    gateway?: StackOptions['gateway'];
    /** The agents' lock timeout (`database.lockTimeoutMs`). */
    lockTimeoutMs?: number;
    /** Each agent reaches the gateway through a proxy the test can cut (`links`). */
    links?: boolean;
    /** Each agent reaches its POS database through a proxy the test can cut (`posLinks`); the test's own connections do not. */
    posLinks?: boolean;
  } = {},
): Promise<TestStack> {
  const posDatabase = async (template: PosTemplate): Promise<PosDbConfig> => ({
    ...(await newPosDatabase(template)),
    ...(opts.lockTimeoutMs ? { lockTimeoutMs: opts.lockTimeoutMs } : {}),
  });
  const [gatewayUrl, branch, strict, other] = await Promise.all([
    newGatewayDatabase(),
    posDatabase('branch'),
    posDatabase('strictBranch'),
    posDatabase('branch'),
  ]);
  const licenseKeys = [BRANCH, STRICT_BRANCH, OTHER_USERS_BRANCH];
  const links = new Map(opts.links ? await Promise.all(licenseKeys.map(async (k) => [k, await startLinkProxy()] as const)) : []);
  const via = (licenseKey: string) => (links.has(licenseKey) ? { gatewayUrl: links.get(licenseKey)!.url } : {});
  const direct = new Map([
    [BRANCH, branch],
    [STRICT_BRANCH, strict],
    [OTHER_USERS_BRANCH, other],
  ]);
  const posLinks = new Map<string, LinkProxy>();
  const agentDatabase = async (licenseKey: string): Promise<PosDbConfig> => {
    const config = direct.get(licenseKey)!;
    if (!opts.posLinks) return config;
    if (config.dialect !== 'postgres') throw new Error('posLinks: PostgreSQL only');
    const proxy = await startLinkProxy();
    posLinks.set(licenseKey, proxy);
    const url = new URL(config.url);
    proxy.connectTo(`http://${url.host}`);
    url.host = new URL(proxy.url).host;
    return { ...config, url: url.toString() };
  };
  const branches = [
    { licenseKey: BRANCH, name: 'Centro', owner: 'tester', database: await agentDatabase(BRANCH), ...via(BRANCH) },
    { licenseKey: STRICT_BRANCH, name: 'Norte', owner: 'tester', database: await agentDatabase(STRICT_BRANCH), ...via(STRICT_BRANCH) },
    { licenseKey: OTHER_USERS_BRANCH, name: 'Ajena', owner: 'other', database: await agentDatabase(OTHER_USERS_BRANCH), ...via(OTHER_USERS_BRANCH) },
  ];
  const stack = await startStack({
    gatewayStoreUrl: gatewayUrl,
    branches,
    apiKeys: [
      { key: API_KEY, owner: 'tester', scopes: ['read', 'write', 'fleet'] },
      { key: OTHER_API_KEY, owner: 'other' },
    ],
    log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    // Printers as the demo's: the tests' virtual printers listen on loopback at free ports.
    gateway: { rateLimit: { perSecond: 10_000, burst: 20_000 }, printers: DEMO_PRINTER_RULE, ...opts.gateway },
    agent: { connection: { backoffBaseMs: 20, backoffMaxMs: 200 }, printers: DEMO_PRINTER_RULE, ...opts.agent },
  });
  for (const link of links.values()) link.connectTo(stack.url);
  await waitForAgents(
    stack,
    branches.map((b) => b.licenseKey),
  );
  const pos = new Map(await Promise.all(branches.map(async (b) => [b.licenseKey, await openPosDb(direct.get(b.licenseKey)!)] as const)));

  const test = stack as TestStack;
  test.pos = pos;
  test.posConfigs = direct;
  test.gatewayDatabaseUrl = gatewayUrl;
  test.links = links;
  test.posLinks = posLinks;
  test.api = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key !== null) headers['x-api-key'] = o.key ?? API_KEY;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(stack.url + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON (XML invoice, HTML docs)
    }
    return { status: res.status, headers: res.headers, body, text };
  };
  const stop = stack.stop.bind(stack);
  test.stop = async () => {
    await stop();
    await Promise.all([...pos.values()].map((p) => p.close()));
    await Promise.all([...links.values(), ...posLinks.values()].map((l) => l.close()));
  };
  return test;
}
