/**
 * The suite's check for processes its tests leave behind (global-setup.ts): an orphan that runs
 * from the run's temporary folder, or carries the run's mark, is found, and ended.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { endProcesses, endProcessesUnder, leftoverProcesses, processesListed, processesUnder, RUN_MARK } from '../support/processes.js';

/**
 * Waits until `pid` runs `sleep`, as /proc's command line shows it. A background job is bash's
 * fork until it execs `sleep`, and the kernel names the process `sleep` (/proc/…/comm) before
 * it has set up the new program's arguments, so on a busy machine the command line still reads
 * `bash -c …` or nothing for a while: wait for the command line itself, which is what the
 * checks read.
 */
function waitForSleep(pid: number): number {
  const deadline = Date.now() + 5_000;
  const commandOf = () => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    } catch {
      return undefined;
    }
  };
  while (commandOf() !== 'sleep') {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not become sleep within 5 s`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
  return pid;
}

/** Starts `sleep` as an orphan (its shell exits at once), as an installer leaves an agent. */
function orphanSleep(cwd: string, env: NodeJS.ProcessEnv = {}): number {
  const started = spawnSync('bash', ['-c', 'sleep 60 >/dev/null 2>&1 & echo $!'], { cwd, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  return waitForSleep(Number(started.stdout.trim()));
}

describe.skipIf(!processesListed)('processes a test leaves behind', () => {
  it('finds an orphan by the folder it runs from, and ends it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leftover-'));
    try {
      const pid = orphanSleep(dir);
      expect(processesUnder(dir).map((p) => p.pid)).toEqual([pid]);
      expect(leftoverProcesses('another-run', dir).map((p) => p.pid)).toEqual([pid]);
      expect((await endProcessesUnder(dir)).map((p) => p.pid)).toEqual([pid]);
      expect(processesUnder(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds an orphan by the mark in its environment, wherever it runs', async () => {
    const mark = `mark-${process.pid}`;
    const pid = orphanSleep(tmpdir(), { [RUN_MARK]: mark });
    const found = leftoverProcesses(mark, '/nonexistent-run-dir');
    expect(found.map((p) => p.pid)).toEqual([pid]);
    expect(found[0]!.command).toBe('sleep 60');
    await endProcesses(found);
    expect(leftoverProcesses(mark, '/nonexistent-run-dir')).toEqual([]);
  });

  it('leaves out this process’s own children and grandchildren (vitest’s workers, at the teardown)', async () => {
    const mark = `mark-own-${process.pid}`;
    const env = { PATH: process.env.PATH, [RUN_MARK]: mark };
    // bash execs a lone command, so the child is `sleep` itself; the grandchild's bash waits on it.
    const child = spawn('bash', ['-c', 'sleep 60'], { env, stdio: 'ignore' });
    const parent = spawn('bash', ['-c', 'sleep 60 & echo $!; wait'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const grandchild = Number((await new Promise<Buffer>((resolve) => parent.stdout.once('data', resolve))).toString().trim());
    try {
      for (const pid of [child.pid!, grandchild]) {
        waitForSleep(pid);
        expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain(`${RUN_MARK}=${mark}`);
      }
      expect(leftoverProcesses(mark, '/nonexistent-run-dir')).toEqual([]);
    } finally {
      await endProcesses([child.pid!, grandchild, parent.pid!].map((pid) => ({ pid, command: '' })));
    }
  });
});
