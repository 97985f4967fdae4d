/**
 * agent idle RSS: the resident memory of the released agent (the bundle in the release built by
 * release.ts) connected to the benchmark's gateway, idle, then again idle after serving 1,000
 * requests; once on the release's own Node.js 24 runtime and once on the Node.js running the
 * benchmark. Target: at most 70 MB.
 *
 * Each reading is taken twice: 3 s after the agent connected (or served its last request), and
 * once it has settled, 20 s after. V8 gives back the garbage of start-up or of a burst of jobs
 * some seconds after the work stops (its memory reducer), so the first reading still holds
 * that garbage and the settled one is what an idle agent occupies on the branch server.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AGENT_NODE_OPTIONS } from '../src/agent/installer/service-manager.js';
import { waitForAgents } from '../src/demo/stack.js';
import { stopAgent } from './agent-process.js';
import { requestOk } from './http-client.js';
import type { BenchContext } from './run.js';

const FIRST_READING_MS = 3_000;
const SETTLED_MS = 20_000;

interface Reading {
  /** 3 s after the work stopped. */
  early: number;
  settled: number;
}

async function readIdle(pid: number): Promise<Reading> {
  await sleep(FIRST_READING_MS);
  const early = rssMb(pid);
  await sleep(SETTLED_MS - FIRST_READING_MS);
  return { early, settled: rssMb(pid) };
}

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return kb / 1024;
}

async function measure(
  ctx: BenchContext,
  node: string,
  releaseDir: string,
  licenseKey: string,
  posUrl: string,
): Promise<{ connected: Reading; served: Reading }> {
  const config = path.join(tmpdir(), `bench-agent-memory-${process.pid}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      agent: {
        licenseKey,
        workerId: 'bench-memory',
        gatewayUrl: ctx.stack.url,
        token: ctx.stack.agentTokens.get(licenseKey),
        database: { dialect: 'postgres', url: posUrl },
        health: { port: 0 },
        lockFile: `${config}.lock`,
        log: { level: 'warn' },
      },
    }),
  );
  // As the service runs it (the installer's service definitions).
  const agent = spawn(node, [...AGENT_NODE_OPTIONS, path.join(releaseDir, 'bin/branch-agent.js'), 'run', '-c', config], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    await waitForAgents(ctx.stack, [licenseKey], 30_000);
    const connected = await readIdle(agent.pid!);
    const url = `${ctx.stack.url}/productos/${licenseKey}?pageSize=50`;
    for (let i = 0; i < 1_000; i += 8) {
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          await requestOk(url, { headers: { 'x-api-key': ctx.apiKey } });
        }),
      );
    }
    return { connected, served: await readIdle(agent.pid!) };
  } finally {
    await stopAgent(agent);
  }
}

/** The released agent serves the benchmarks' own agent's database (read only here). */
export async function agentMemoryBench(ctx: BenchContext, releaseDir: string, licenseKey: string): Promise<string[]> {
  const bundled = await measure(ctx, path.join(releaseDir, 'runtime/node'), releaseDir, licenseKey, ctx.agentPosUrl);
  const here = await measure(ctx, process.execPath, releaseDir, licenseKey, ctx.agentPosUrl);
  const mb = (r: Reading) => `${r.settled.toFixed(0)} MB (${r.early.toFixed(0)} MB at 3 s)`;
  return [
    `agent idle RSS, settled: ${mb(bundled.connected)} connected, ${mb(bundled.served)} after 1,000 requests (target 70; release runtime Node ${readRuntimeVersion(releaseDir)}); on Node ${process.versions.node}: ${mb(here.connected)} and ${mb(here.served)}`,
  ];
}

function readRuntimeVersion(releaseDir: string): string {
  return (JSON.parse(readFileSync(path.join(releaseDir, 'runtime/runtime.json'), 'utf8')) as { node: string }).node;
}
