/**
 * Runs a branch agent as its own process, as at a branch: the benchmark's gateway, client and
 * agent then use separate cores instead of sharing one event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export function spawnAgent(config: Record<string, unknown>): ChildProcess {
  const file = path.join(tmpdir(), `bench-agent-${process.pid}-${Date.now()}.json`);
  // A lock file of its own: the benchmarks run several agents on this machine at once.
  writeFileSync(file, JSON.stringify({ agent: { log: { level: 'warn' }, lockFile: `${file}.lock`, ...config } }));
  // BENCH_AGENT_PROFILE=<dir>: a CPU profile of each agent there (node --cpu-prof).
  const profile = process.env.BENCH_AGENT_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_AGENT_PROFILE}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'src/cli.ts', 'run', '--config', file], { stdio: ['ignore', 'inherit', 'inherit'] });
  child.once('exit', (code) => {
    if (code !== 0 && code !== null) console.error(`bench agent exited with ${code}`);
  });
  return child;
}

/** Stops an agent started here and waits for it to exit; one that died early has nothing left to wait for. */
export async function stopAgent(agent: ChildProcess): Promise<void> {
  if (agent.exitCode !== null || agent.signalCode !== null) return;
  const exited = new Promise((r) => agent.once('exit', r));
  agent.kill('SIGTERM');
  await exited;
}
