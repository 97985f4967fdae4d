/**
 * `npm run bench`: starts a private embedded PostgreSQL, the gateway in this process and the
 * branch agent in its own process (as deployed), runs every benchmark and prints ratios measured
 * in this run (absolute times vary too much between machines to compare).
 */
import pino from 'pino';
import { startEmbeddedPostgres, type EmbeddedCluster } from '../src/embedded-postgres/cluster.js';
import { createPosDatabase } from '../src/demo/pos-database.js';
import { startStack, waitForAgents, type Stack } from '../src/demo/stack.js';
import { openPos, type PosRuntime } from '../src/pos/runtime.js';
import { spawnAgent, stopAgent } from './agent-process.js';
import { addCatalogue } from './catalogue.js';
import { addLinesBench } from './add-lines.js';
import { agentMemoryBench } from './agent-memory.js';
import { agentsBench } from './agents.js';
import { authCacheBench } from './auth-cache.js';
import { closeShiftBench } from './close-shift.js';
import { clusterBench } from './cluster.js';
import { BENCH_POLL_INTERVAL_MS, eventLatencyBench, pollCostBench } from './events.js';
import { payBench } from './pay.js';
import { printing } from './printing.js';
import { buildRelease } from './release.js';
import { roundtrip } from './roundtrip.js';
import { searchBench } from './search.js';
import { posDatabase } from '../src/config/schema.js';
import { DEMO_PRINTER_RULE } from '../src/demo/printers.js';

export interface BenchContext {
  cluster: EmbeddedCluster;
  /** A pristine copy of the branch database, the template for benchmarks that need their own. */
  posUrl: string;
  /** The branch database the benchmarks' agent serves. */
  agentPosUrl: string;
  stack: Stack;
  licenseKey: string;
  apiKey: string;
  /** The agent's POS database, opened by the benchmark itself for the direct baselines. */
  pos: PosRuntime;
}

const licenseKey = 'BENCH00000000001';
/** The branch of the released agent whose memory is measured, beside the benchmarks' own agent. */
const memoryLicenseKey = 'BENCH00000000002';
const apiKey = 'bench-key';
const log = pino({ level: 'warn' });
/** `npm run bench -- roundtrip agentsBench`: only these (by the names below); all when none is named. */
const only = process.argv.slice(2);

const cluster = await startEmbeddedPostgres();
try {
  await cluster.admin('CREATE DATABASE gateway');
  // A pristine copy first: benchmarks that need a database of their own clone it.
  await createPosDatabase(cluster, 'pos_bench_template', { name: 'Bench', forceCancelReason: false, forceDiscountType: false });
  await addCatalogue(cluster.url('pos_bench_template'));
  await cluster.admin('CREATE DATABASE pos_bench TEMPLATE pos_bench_template');
  const posUrl = cluster.url('pos_bench');
  const stack = await startStack({
    gatewayStoreUrl: cluster.url('gateway'),
    branches: [
      { licenseKey, name: 'Bench', owner: 'bench', database: posDatabase({ dialect: 'postgres', url: posUrl }) },
      { licenseKey: memoryLicenseKey, name: 'Bench memory', owner: 'bench', database: posDatabase({ dialect: 'postgres', url: posUrl }) },
    ],
    apiKeys: [{ key: apiKey, owner: 'bench' }],
    log,
    // The latency bench's receiver and the print bench's printer listen on loopback.
    gateway: { rateLimit: { perSecond: 1_000_000, burst: 1_000_000 }, webhooks: { allowHttp: true, allowLoopback: true }, printers: DEMO_PRINTER_RULE },
    startAgents: false,
  });
  const agent = spawnAgent({
    licenseKey,
    workerId: 'bench-agent',
    gatewayUrl: stack.url,
    token: stack.agentTokens.get(licenseKey),
    database: posDatabase({ dialect: 'postgres', url: posUrl }),
    health: { port: 0 },
    events: { pollIntervalMs: BENCH_POLL_INTERVAL_MS },
    // The config file's spelling of DEMO_PRINTER_RULE.
    printers: { ports: ['1024-65535'], allowLoopback: true },
  });
  const pos = await openPos(posDatabase({ dialect: 'postgres', url: posUrl }), log);
  try {
    await waitForAgents(stack, [licenseKey], 30_000);
    const ctx: BenchContext = { cluster, posUrl: cluster.url('pos_bench_template'), agentPosUrl: posUrl, stack, licenseKey, apiKey, pos };
    // auth-cache first: its memory reading is cleanest before the others' garbage.
    const benches = {
      authCacheBench,
      roundtrip,
      addLinesBench,
      payBench,
      closeShiftBench,
      searchBench,
      printing,
      eventLatencyBench,
      pollCostBench,
      clusterBench,
      agentsBench,
    };
    for (const [name, bench] of Object.entries(benches)) {
      if (only.length > 0 && !only.includes(name)) continue;
      for (const line of await bench(ctx)) console.log(line);
    }
    if (only.length === 0 || only.includes('agentMemoryBench')) {
      const release = buildRelease();
      try {
        for (const line of release.lines) console.log(line);
        for (const line of await agentMemoryBench(ctx, release.dir, memoryLicenseKey)) console.log(line);
      } finally {
        release.remove();
      }
    }
  } finally {
    await stopAgent(agent);
    await pos.close();
    await stack.stop();
  }
} finally {
  await cluster.stop();
}
