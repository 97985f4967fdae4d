/**
 * agents per instance: one gateway instance in its own process (gateway-process.ts) holding
 * 10,000 simulated agents connected from another process (simulated-agents.ts: real WebSocket
 * connections, each answering jobs and heartbeating every 15 s), and small jobs
 * (GET /turnos/{branch}) sent at 1,000 requests/s spread over them from this process, open
 * loop: requests leave on schedule whether or not earlier ones were answered. Prints p50 and
 * p99 of the requests, the gateway's RSS, and its memory per idle agent connection: the RSS
 * with every agent connected and idle minus the RSS before the first connected, over the
 * agents (both after a garbage collection). Targets: p99 ≤ 50 ms, ≤ 30 KB per connection.
 * Beside the client's times, the gateway's own (a request's arrival to its answer) and its event
 * loop's delay: what the client sees beyond them is spent outside the gateway process.
 *
 * BENCH_GATEWAY_PROFILE=<dir> writes a CPU profile of the gateway process there (node --cpu-prof).
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { GatewayStore } from '../src/gateway/store.js';
import { sha256 } from '../src/gateway/secrets.js';
import type { MemoryReading, ServedReading } from './gateway-process.js';
import type { BenchContext } from './run.js';
import { request } from './http-client.js';
import { time } from './measure.js';

const SIMULATED_AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const RATE_PER_SECOND = 1_000;
const LOAD_SECONDS = 10;
/** Long enough for every simulated agent to have sent a heartbeat while idle. */
const IDLE_MS = 16_000;
const API_KEY = 'agents-bench-key';

/**
 * Many clients, as an integration platform's requests to many branches are: sixteen sockets (the
 * other benches' client) queue requests behind any stall, and that queue is the client's, not
 * the gateway's.
 */
const clients = new http.Agent({ keepAlive: true, maxSockets: 256 });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function forkScript(script: string, execArgv: string[] = []): ChildProcess {
  const child = fork(new URL(script, import.meta.url).pathname, [], {
    execArgv: [...execArgv, '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.once('exit', (code) => {
    if (code !== 0 && code !== null) console.error(`${script} exited with ${code}`);
  });
  return child;
}

function reply<T>(child: ChildProcess, message?: unknown): Promise<T> {
  const answer = new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));
  if (message !== undefined) child.send(message as object);
  return answer;
}

async function stop(child: ChildProcess, message?: string): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  if (message) child.send(message);
  else child.kill('SIGTERM');
  await exited;
}

/** The bench's branches, registered at once (one statement per thousand rows, not a transaction each). */
async function registerBranches(store: GatewayStore, user: number): Promise<Array<[string, string]>> {
  const branches = Array.from({ length: SIMULATED_AGENTS }, (_, i): [string, string] => {
    const licenseKey = `SIM${String(i).padStart(13, '0')}`;
    return [licenseKey, `agt_bench_${licenseKey}`];
  });
  for (let i = 0; i < branches.length; i += 1_000) {
    const rows = branches
      .slice(i, i + 1_000)
      .map(([licenseKey, token]) => ({ license_key: licenseKey, user_id: user, name: licenseKey, agent_token_hash: sha256(token) }));
    await store.db.insertInto('gw_branches').values(rows).execute();
  }
  return branches;
}

/** Open loop at RATE_PER_SECOND for LOAD_SECONDS; the sorted latencies and the rate achieved. */
async function load(url: string, branches: Array<[string, string]>): Promise<{ latencies: number[]; rate: number }> {
  const latencies: number[] = [];
  const sent: Array<Promise<void>> = [];
  const total = RATE_PER_SECOND * LOAD_SECONDS;
  const start = Date.now();
  while (sent.length < total) {
    const due = Math.min(total, Math.floor(((Date.now() - start) * RATE_PER_SECOND) / 1000) + 1);
    while (sent.length < due) {
      const [licenseKey] = branches[(sent.length * 7919) % branches.length]!;
      sent.push(
        time(async () => {
          const res = await request(`${url}/turnos/${licenseKey}`, { headers: { 'x-api-key': API_KEY }, agent: clients });
          if (res.status !== 200) throw new Error(`API answered ${res.status}: ${res.body}`);
        }).then((ms) => void latencies.push(ms)),
      );
    }
    await sleep(1);
  }
  await Promise.all(sent);
  const elapsed = (Date.now() - start) / 1000;
  return { latencies: latencies.sort((a, b) => a - b), rate: latencies.length / elapsed };
}

export async function agentsBench({ cluster }: BenchContext): Promise<string[]> {
  await cluster.admin('CREATE DATABASE gateway_agents');
  const storeUrl = cluster.url('gateway_agents');
  const store = new GatewayStore(storeUrl);
  const profileDir = process.env.BENCH_GATEWAY_PROFILE;
  const gateway = forkScript('./gateway-process.ts', ['--expose-gc', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])]);
  let agents: ChildProcess | undefined;
  try {
    await store.migrate();
    const user = await store.ensureUser('agents-bench');
    await store.addApiKey(user, API_KEY, 'agents bench');
    const branches = await registerBranches(store, user);
    const { url } = await reply<{ url: string }>(gateway, { storeUrl });
    // A few requests first, so that the baseline holds what serving any request loads.
    await request(`${url}/turnos/${branches[0]![0]}`, { headers: { 'x-api-key': API_KEY } });
    const before = await reply<MemoryReading>(gateway, 'memory');
    agents = forkScript('./simulated-agents.ts');
    const connectStart = Date.now();
    await reply(agents, { url, branches });
    const connectSeconds = (Date.now() - connectStart) / 1000;
    await sleep(IDLE_MS);
    const idle = await reply<MemoryReading>(gateway, 'memory');
    await reply<ServedReading>(gateway, 'served');
    const { latencies, rate } = await load(url, branches);
    const inGateway = await reply<ServedReading>(gateway, 'served');
    const loaded = await reply<MemoryReading>(gateway, 'memory');
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
    const perConnection = (idle.rss - before.rss) / SIMULATED_AGENTS / 1024;
    return [
      `agents per instance: ${SIMULATED_AGENTS.toLocaleString('en')} simulated agents on one instance (connected in ${connectSeconds.toFixed(1)} s); small job p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms at ${rate.toFixed(0)} requests/s (target p99 ≤ 50 ms at 1,000/s); in the gateway, arrival to answer p50 ${inGateway.p50.toFixed(1)} ms, p99 ${inGateway.p99.toFixed(1)} ms, event loop delay p99 ${inGateway.loopDelayP99.toFixed(1)} ms`,
      `gateway memory: ${mb(idle.rss)} RSS with the agents idle (${mb(before.rss)} before they connected, ${mb(loaded.rss)} after the load); ${perConnection.toFixed(1)} KB per idle agent connection (target ≤ 30 KB; heap ${((idle.heapUsed - before.heapUsed) / SIMULATED_AGENTS / 1024).toFixed(1)} KB of it)`,
    ];
  } finally {
    if (agents) await stop(agents);
    await stop(gateway, 'stop');
    await store.close();
  }
}
