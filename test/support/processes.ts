/**
 * Processes the suite started, found through /proc (Linux): by the temporary folder they run
 * from (an installed agent's `<prefix>/current/runtime/node …`, whose installer or remote
 * upgrade started it, is a process no test holds a handle on) or by the run's mark in their
 * environment. The installer's tests end theirs with `endProcessesUnder`; the suite's global
 * teardown fails when any is still alive (global-setup.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** Set in the environment of every worker, and so of every process a test starts with it. */
export const RUN_MARK = 'BRANCH_AGENT_TEST_RUN';

export interface LiveProcess {
  pid: number;
  command: string;
}

/** False where /proc does not list processes (the check then says it was not made). */
export const processesListed = existsSync('/proc/self/cmdline');

function readOr(read: () => string): string {
  try {
    return read();
  } catch {
    // gone meanwhile, or another user's
    return '';
  }
}

function parentOf(pid: number): number {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  // The command in parentheses may hold spaces and parentheses: the fields follow the last ')'.
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? 0);
}

/** Every live process of this user but this one, with what tells where it comes from. */
function liveProcesses(): Array<LiveProcess & { places: string[]; environment: string; parent: number }> {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const argv = readOr(() => readFileSync(`/proc/${pid}/cmdline`, 'utf8'))
      .split('\0')
      .filter(Boolean);
    if (argv.length === 0) continue; // a kernel thread, a zombie, or not ours to read
    const places = [...argv, readOr(() => readlinkSync(`/proc/${pid}/cwd`)), readOr(() => readlinkSync(`/proc/${pid}/exe`))];
    const environment = readOr(() => readFileSync(`/proc/${pid}/environ`, 'utf8'));
    found.push({ pid, command: argv.join(' '), places, environment, parent: parentOf(pid) });
  }
  return found;
}

/** `place` is `dir` or names something in it (also inside an argument such as `--prefix=…`). */
const under = (place: string, dir: string) => {
  const bare = place.replace(/ \(deleted\)$/, '');
  return bare === dir || bare.includes(dir + path.sep);
};

/** The processes that run from `dir`, or name a file in it on their command line. */
export function processesUnder(dir: string): LiveProcess[] {
  if (!processesListed) return [];
  return liveProcesses()
    .filter((p) => p.places.some((place) => under(place, dir)))
    .map(({ pid, command }) => ({ pid, command }));
}

/**
 * The processes a test of run `mark` started that are still alive: those that run from the
 * run's temporary folder or carry its mark, leaving out this process's own descendants (vitest's
 * workers and its esbuild service, which vitest ends after the global teardown).
 */
export function leftoverProcesses(mark: string, runDir: string): LiveProcess[] {
  if (!processesListed) return [];
  const all = liveProcesses();
  const parents = new Map(all.map((p) => [p.pid, p.parent]));
  const descendsFromUs = (pid: number) => {
    for (let at = parents.get(pid), hops = 0; at !== undefined && hops < 64; at = parents.get(at), hops++) if (at === process.pid) return true;
    return false;
  };
  return all
    .filter((p) => p.environment.split('\0').includes(`${RUN_MARK}=${mark}`) || p.places.some((place) => under(place, runDir)))
    .filter((p) => !descendsFromUs(p.pid))
    .map(({ pid, command }) => ({ pid, command }));
}

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8')));

/** Kills (SIGKILL) `processes` and waits until they are gone; answers those that were. */
export async function endProcesses(processes: LiveProcess[]): Promise<LiveProcess[]> {
  for (const p of processes) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + 10_000;
  while (processes.some((p) => alive(p.pid)) && Date.now() < deadline) await sleep(50);
  return processes;
}

/** Ends every process that runs from `dir` (an installer test's temporary prefix). */
export function endProcessesUnder(dir: string): Promise<LiveProcess[]> {
  return endProcesses(processesUnder(dir));
}
