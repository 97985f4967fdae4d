/**
 * agents per instance: one gateway instance in its own process (gateway-process.ts) holding
 * 10,000 simulated agents connected from another process (simulated-agents.ts: real WebSocket
 * connections, each answering jobs, and sending a heartbeat and a ping every 15 s as an agent
 * does), and small jobs (GET /turnos/{branch}, each request to another branch) sent from a third
 * (load-generator.ts) at 1,000 requests/s for 150 s after 5 s of warm-up at the same rate.
 *
 * Open loop: each request leaves when it is due whether or not earlier ones were answered, and
 * its latency counts from when it was due, not from when it left, so that queueing anywhere (in
 * the gateway, in the load generator, on the machine) is in the numbers. Prints p50 and p99 of those
 * latencies with the rate the requests actually left at; the gateway's own times (a request's
 * arrival to its answer) and its event loop's delay, so that what the client sees beyond them is
 * known to be spent outside the gateway; the full garbage collections it made during the load and
 * its longest collection pause; the CPU each of the three processes used over the load
 * (a simulator or load generator near a full core would be measuring itself); the gateway's RSS,
 * and its memory per idle agent connection: the RSS with every agent connected and idle minus the
 * RSS before the first connected, over the agents (both after a garbage collection).
 * Targets: p99 ≤ 50 ms at 1,000 requests/s, ≤ 30 KB per connection.
 *
 * BENCH_GATEWAY_PROFILE=<dir> writes a CPU profile of the gateway process there (node --cpu-prof).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { fork, type ChildProcess } from 'node:child_process';
import { GatewayStore } from '../src/gateway/store.js';
import { GATEWAY_NODE_FLAGS } from '../src/gateway/heap-growth.js';
import { sha256 } from '../src/gateway/secrets.js';
import type { MemoryReading, ServedReading } from './gateway-process.js';
import type { BenchContext } from './run.js';
import { API_KEY, RATE_PER_SECOND, type LoadOrder, type LoadResult } from './load-order.js';
import { request } from './http-client.js';

const SIMULATED_AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
/**
 * Long enough to hold the gateway's full garbage collections as they come in a gateway that stays
 * up: one every minute or two (heap-growth.ts). Ten seconds after the memory reading's forced
 * collection would have held none, and measured a gateway that never collects.
 */
const LOAD_SECONDS = 150;
/**
 * At the same rate before the measured load, unmeasured: the request path compiled, as in a
 * gateway that has been up. Its first 3 to 4 s after the agents connected answer in up to 150 ms
 * (measured per 250 ms window): 2 s of warm-up left a second of that in the measured load.
 */
const WARMUP_SECONDS = 5;
/** Long enough for every simulated agent to have sent a heartbeat while idle. */
const IDLE_MS = 16_000;

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

/** The child's next message; a child that exits first fails the bench rather than hanging it. */
function reply<T>(child: ChildProcess, message?: unknown): Promise<T> {
  const answer = new Promise<T>((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`${child.spawnargs.at(-1)} exited with ${code} before it answered`));
    child.once('exit', exited);
    child.once('message', (m) => {
      child.off('exit', exited);
      resolve(m as T);
    });
  });
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

export async function agentsBench({ cluster }: BenchContext): Promise<string[]> {
  await cluster.admin('CREATE DATABASE gateway_agents');
  const storeUrl = cluster.url('gateway_agents');
  const store = new GatewayStore(storeUrl);
  const profileDir = process.env.BENCH_GATEWAY_PROFILE;
  // With the flags `branch-agent gateway` restarts itself with (heap-growth.ts), on any Node.
  const gateway = forkScript('./gateway-process.ts', [
    '--expose-gc',
    ...GATEWAY_NODE_FLAGS,
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
  ]);
  let agents: ChildProcess | undefined;
  const clients = forkScript('./load-generator.ts');
  try {
    await store.migrate();
    const user = await store.ensureUser('agents-bench');
    await store.addApiKey(user, API_KEY, 'agents bench');
    const branches = await registerBranches(store, user);
    const { url } = await reply<{ url: string }>(gateway, { storeUrl });
    // A few requests first, so that the baseline holds what serving any request loads.
    await request(`${url}/turnos/${branches[0]![0]}`, { headers: { 'x-api-key': API_KEY } });
    const before = await reply<MemoryReading>(gateway, 'memory');
    // Real agents each wait on their own machine; the one process that stands in for 10,000 of
    // them must not add collections they would not have (its memory reducer paused it 86 ms).
    agents = forkScript('./simulated-agents.ts', GATEWAY_NODE_FLAGS);
    const connectStart = Date.now();
    await reply(agents, { url, branches });
    const connectSeconds = (Date.now() - connectStart) / 1000;
    await sleep(IDLE_MS);
    const idle = await reply<MemoryReading>(gateway, 'memory');
    const licenseKeys = branches.map(([licenseKey]) => licenseKey);
    await reply<LoadResult>(clients, { url, licenseKeys, first: 0, seconds: WARMUP_SECONDS } satisfies LoadOrder);
    await reply<ServedReading>(gateway, 'served');
    await reply(agents, 'cpu');
    const loadStart = performance.now();
    const loaded = await reply<LoadResult>(clients, { url, licenseKeys, first: WARMUP_SECONDS * RATE_PER_SECOND, seconds: LOAD_SECONDS } satisfies LoadOrder);
    const loadMs = performance.now() - loadStart;
    const inGateway = await reply<ServedReading>(gateway, 'served');
    const { cpuMs: agentsCpuMs } = await reply<{ cpuMs: number }>(agents, 'cpu');
    const after = await reply<MemoryReading>(gateway, 'memory');
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
    const perConnection = (idle.rss - before.rss) / SIMULATED_AGENTS / 1024;
    const share = (cpuMs: number) => `${((100 * cpuMs) / loadMs).toFixed(0)}%`;
    return [
      `agents per instance: ${SIMULATED_AGENTS.toLocaleString('en')} simulated agents on one instance (connected in ${connectSeconds.toFixed(1)} s); small job p50 ${loaded.p50.toFixed(1)} ms, p99 ${loaded.p99.toFixed(1)} ms from when each was due, sent at ${loaded.sentPerSecond.toFixed(0)} requests/s (target p99 ≤ 50 ms at 1,000/s); in the gateway, arrival to answer p50 ${inGateway.p50.toFixed(1)} ms, p99 ${inGateway.p99.toFixed(1)} ms, event loop delay p99 ${inGateway.loopDelayP99.toFixed(1)} ms; ${inGateway.fullCollections} full garbage collections during the load, longest pause ${inGateway.longestPauseMs.toFixed(1)} ms`,
      `agents load, CPU as a share of one core over it: gateway ${share(inGateway.cpuMs)} (${((1000 * inGateway.cpuMs) / (RATE_PER_SECOND * LOAD_SECONDS)).toFixed(0)} µs per request, heartbeats and pings included), simulated agents ${share(agentsCpuMs)}, load generator ${share(loaded.cpuMs)}`,
      `gateway memory: ${mb(idle.rss)} RSS with the agents idle (${mb(before.rss)} before they connected, ${mb(after.rss)} after the load); ${perConnection.toFixed(1)} KB per idle agent connection (target ≤ 30 KB; heap ${((idle.heapUsed - before.heapUsed) / SIMULATED_AGENTS / 1024).toFixed(1)} KB of it)`,
    ];
  } finally {
    if (agents) await stop(agents);
    await stop(clients);
    await stop(gateway, 'stop');
    await store.close();
  }
}
