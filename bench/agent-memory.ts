/**
 * agent idle RSS: the resident memory of the released agent (the bundle in the release built by
 * release.ts) connected to the benchmark's gateway, idle, then again idle after serving 1,000
 * requests; once on the release's own Node.js 24 runtime and once on the Node.js running the
 * benchmark. Target: at most 70 MB after the requests.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AGENT_NODE_OPTIONS } from '../src/agent/installer/service-manager.js';
import { waitForAgents } from '../src/demo/stack.js';
import { request } from './http-client.js';
import type { BenchContext } from './run.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
): Promise<{ connected: number; served: number }> {
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
    await sleep(3_000);
    const connected = rssMb(agent.pid!);
    const url = `${ctx.stack.url}/productos/${licenseKey}?pageSize=50`;
    for (let i = 0; i < 1_000; i += 8) {
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          const res = await request(url, { headers: { 'x-api-key': ctx.apiKey } });
          if (res.status !== 200) throw new Error(`API answered ${res.status}`);
        }),
      );
    }
    await sleep(3_000);
    return { connected, served: rssMb(agent.pid!) };
  } finally {
    agent.kill('SIGTERM');
    await new Promise((r) => agent.once('exit', r));
  }
}

/** `posUrl`: the database the agent serves (the benchmarks' own agent's, read only here). */
export async function agentMemoryBench(ctx: BenchContext, releaseDir: string, licenseKey: string, posUrl: string): Promise<string[]> {
  const bundled = await measure(ctx, path.join(releaseDir, 'runtime/node'), releaseDir, licenseKey, posUrl);
  const here = await measure(ctx, process.execPath, releaseDir, licenseKey, posUrl);
  return [
    `agent idle RSS: ${bundled.connected.toFixed(0)} MB connected, ${bundled.served.toFixed(0)} MB after 1,000 requests (target 70; release runtime Node ${readRuntimeVersion(releaseDir)}); on Node ${process.versions.node}: ${here.connected.toFixed(0)} MB and ${here.served.toFixed(0)} MB`,
  ];
}

function readRuntimeVersion(releaseDir: string): string {
  return (JSON.parse(readFileSync(path.join(releaseDir, 'runtime/runtime.json'), 'utf8')) as { node: string }).node;
}
