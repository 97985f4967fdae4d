/**
 * A whole system on one machine: gateway (with its store) and one agent per branch, each branch
 * on its own PostgreSQL database. The demo, the end-to-end tests and the benchmarks all start
 * exactly this.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { startAgent, type Agent, type AgentConfig } from '../agent/agent.js';
import { buildGateway, type Gateway, type GatewayOptions } from '../gateway/app.js';
import { newSecret } from '../gateway/secrets.js';
import type { Scope } from '../gateway/scopes.js';
import { GatewayStore } from '../gateway/store.js';
import type { PosDbConfig } from '../pos/db.js';
import { gatewayDefaults } from '../config/schema.js';

/** A stack in tests and benchmarks listens where nothing else does unless told a port. */
const ANY_FREE_PORT = 0;

export interface StackBranch {
  licenseKey: string;
  name: string;
  /** Name of the user (API key owner) the branch belongs to. */
  owner: string;
  /** The branch's POS database, ready to use (schema installed, data seeded). */
  database: PosDbConfig;
  /** Where the branch's agent reaches the gateway when not directly (through a proxy); the stack's own URL unless given. */
  gatewayUrl?: string;
}

export interface StackOptions {
  gatewayStoreUrl: string;
  branches: StackBranch[];
  /** Scopes: read and write unless given. */
  apiKeys: Array<{ key: string; owner: string; scopes?: readonly Scope[] }>;
  host?: string;
  port?: number;
  log: Logger;
  /** A webhook key is made for the stack unless given. */
  gateway?: Omit<GatewayOptions, 'store' | 'log' | 'webhookKey'> & Partial<Pick<GatewayOptions, 'webhookKey'>>;
  agent?: Partial<Pick<AgentConfig, 'concurrency' | 'idempotencyRetentionHours' | 'connection' | 'events' | 'upgrades' | 'printers' | 'wallClock'>>;
  /** false: register the branches but leave running their agents to the caller (other processes). */
  startAgents?: boolean;
}

export interface Stack {
  url: string;
  /** Replaced by `restartGateway`. */
  gateway: Gateway;
  store: GatewayStore;
  agents: Map<string, Agent>;
  agentTokens: Map<string, string>;
  /** Starts (again) the agent of a branch, e.g. after a test stopped it. */
  startAgent(licenseKey: string): Promise<Agent>;
  /** Closes the gateway (agents lose their connection) and starts a new one on the same port. */
  restartGateway(): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const store = new GatewayStore(opts.gatewayStoreUrl);
  await store.migrate();
  const users = new Map<string, number>();
  for (const owner of new Set([...opts.apiKeys.map((k) => k.owner), ...opts.branches.map((b) => b.owner)])) {
    users.set(owner, await store.ensureUser(owner));
  }
  for (const { key, owner, scopes } of opts.apiKeys) await store.addApiKey(users.get(owner)!, key, 'demo', scopes);
  const agentTokens = new Map<string, string>();
  for (const branch of opts.branches) {
    const token = newSecret('agt');
    agentTokens.set(branch.licenseKey, token);
    await store.upsertBranch(users.get(branch.owner)!, branch.licenseKey, token, branch.name);
  }

  const host = opts.host ?? gatewayDefaults().host;
  // One key for every gateway of the stack: a restarted gateway still signs with the secrets it sealed.
  const webhookKey = opts.gateway?.webhookKey ?? randomBytes(32);
  const newGateway = () => buildGateway({ store, log: opts.log.child({ component: 'gateway' }), ...opts.gateway, webhookKey });
  let gateway = await newGateway();
  const address = await gateway.app.listen({ host, port: opts.port ?? ANY_FREE_PORT });
  const url = address.replace('[::1]', '127.0.0.1');
  const port = Number(new URL(url).port);

  const agents = new Map<string, Agent>();
  const start = async (licenseKey: string) => {
    const branch = opts.branches.find((b) => b.licenseKey === licenseKey)!;
    const agent = await startAgent(
      {
        licenseKey,
        workerId: `agent-${licenseKey}`,
        gatewayUrl: branch.gatewayUrl ?? url,
        token: agentTokens.get(licenseKey)!,
        database: branch.database,
        ...opts.agent,
      },
      opts.log.child({ component: 'agent', licenseKey }),
    );
    agents.set(licenseKey, agent);
    return agent;
  };
  if (opts.startAgents !== false) await Promise.all(opts.branches.map((b) => start(b.licenseKey)));

  return {
    url,
    get gateway() {
      return gateway;
    },
    store,
    agents,
    agentTokens,
    startAgent: start,
    async restartGateway() {
      await gateway.app.close();
      gateway = await newGateway();
      await gateway.app.listen({ host, port });
    },
    async stop() {
      await Promise.all([...agents.values()].map((a) => a.stop(2000)));
      await gateway.app.close();
      await store.close();
    },
  };
}

/** Resolves once every branch's agent has said hello to the gateway. */
export async function waitForAgents(stack: Stack, licenseKeys: string[], timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!licenseKeys.every((k) => stack.gateway.hub.agentFor(k))) {
    if (Date.now() > until) throw new Error(`agents not connected: ${licenseKeys.filter((k) => !stack.gateway.hub.agentFor(k)).join(', ')}`);
    await sleep(20);
  }
}
