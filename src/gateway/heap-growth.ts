/**
 * How the gateway's heap grows and shrinks: V8's full collections, each of which makes every
 * request that arrives meanwhile wait, are to come rarely and to pause briefly.
 *
 * A full collection of the heap that 10,000 connected agents keep (70 MB live) holds requests
 * for its pause and for the marking steps it takes on the event loop. V8 sizes the heap for
 * throughput: the gateway promotes slowly, so collecting often looks cheap, and it grew the
 * heap by about a fifth. At 1,000 requests/s that was a full collection every 5 s. Measured by
 * the agents bench over 150 s, on 2 cores:
 *
 * | heap | full collections | longest pause | client p99 |
 * |---|---|---|---|
 * | V8's own growth | 31 | 53 ms | 171 ms |
 * | grows 2× (100) | 3 | 28 ms | 64 ms |
 * | grows 4× (300) | 1 | 101–267 ms | 38–78 ms |
 * | grows 4×, no memory reducer | 1 | 15–84 ms | 40–59 ms |
 * | the same, and 32 MB semi-spaces | 1 | 37 ms | 34 ms |
 *
 * The price of the growth is a heap of up to four times the live one (RSS about 300 MB at
 * 10,000 agents). The long pauses left were the memory reducer's: a collection V8 starts when
 * it judges the program idle, to give memory back, which shrinks the young generation (126 ms)
 * and waits for the sweep of dead socket buffers (104 ms). A gateway at its peak is not idle;
 * one kept running gives nothing back that it will not need again within minutes.
 */
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 300;

/** Set at run time; the agents bench counts the full collections, which is how it is known to take effect. */
export function growHeapBetweenFullCollections(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/**
 * V8 settings read when V8 sets up the heap, so not at run time: no memory reducer (which
 * `NODE_OPTIONS` refuses, so only Node's command line sets it), and a young generation of 32 MB
 * semi-spaces instead of 16 MB, so that half as many scavenges (every 0.36 s under the bench's
 * load, 9 ms each) hold requests, and fewer short-lived objects live long enough to be promoted.
 * With both, over 150 s of load: 193 scavenges of 14 ms on average, 1 full collection,
 * client p99 34 ms, RSS about 350 MB after the load (64 MB semi-spaces: p99 35 ms, 420 MB).
 */
export const GATEWAY_NODE_FLAGS = ['--no-memory-reducer', '--max-semi-space-size=32'];

/** A flag's name whichever way it is spelled or set: `--no_memory_reducer` → `memory-reducer`. */
const flagName = (flag: string) =>
  flag
    .replace(/^--(no[-_])?/, '')
    .replace(/=.*/, '')
    .replaceAll('_', '-');

/**
 * Those of GATEWAY_NODE_FLAGS that neither Node's command line (`process.execArgv`) nor
 * `NODE_OPTIONS` sets, either way: an operator's own setting is kept.
 */
export function missingGatewayNodeFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map(flagName));
  return GATEWAY_NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}

/**
 * Makes sure this process runs with GATEWAY_NODE_FLAGS, by replacing it with itself started with
 * those it lacks (`process.execve`: the same pid, environment, and standard input and outputs;
 * Node closes other descriptors, which the gateway has not opened yet). Answers false, and the
 * gateway runs with V8's own settings, where Node cannot replace a process (Node.js before 22.15,
 * Windows) or the exec fails, and where a parent talks to this process over an IPC channel,
 * which the new program would not inherit. To keep the restart from happening, set both flags.
 */
export function runWithGatewayNodeFlags(): boolean {
  const missing = missingGatewayNodeFlags(process.execArgv, process.env.NODE_OPTIONS);
  if (missing.length === 0) return true;
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (typeof execve !== 'function' || process.platform === 'win32' || process.channel) return false;
  try {
    return execve.call(process, process.execPath, [process.execPath, ...process.execArgv, ...missing, ...process.argv.slice(1)], process.env);
  } catch {
    return false;
  }
}
