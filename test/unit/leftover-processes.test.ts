/**
 * The suite's check for processes its tests leave behind (global-setup.ts): an orphan that runs
 * from the run's temporary folder, or carries the run's mark, is found, and ended.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { endProcesses, endProcessesUnder, leftoverProcesses, processesListed, processesUnder, RUN_MARK } from '../support/processes.js';

/**
 * Starts `sleep` as an orphan (its shell exits at once), as an installer leaves an agent. The
 * background job is bash's fork until it execs `sleep`: on a busy machine /proc still shows
 * `bash -c …` for a while, so wait for the exec before anything reads its command line.
 */
function orphanSleep(cwd: string, env: NodeJS.ProcessEnv = {}): number {
  const started = spawnSync('bash', ['-c', 'sleep 60 >/dev/null 2>&1 & echo $!'], { cwd, env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  const pid = Number(started.stdout.trim());
  const deadline = Date.now() + 5_000;
  while (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'sleep') {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not become sleep within 5 s`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
  return pid;
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

  it('leaves out this process’s own children (vitest’s workers, at the teardown)', () => {
    const mark = `mark-own-${process.pid}`;
    const child = spawnSync('bash', ['-c', `${RUN_MARK}=${mark} bash -c 'sleep 0.2' & sleep 0.05; echo`], { encoding: 'utf8' });
    expect(child.status).toBe(0);
    expect(leftoverProcesses(mark, '/nonexistent-run-dir')).toEqual([]);
  });
});
