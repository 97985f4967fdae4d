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
 * | grows 4×, no memory reducer | 1 | 15 ms | 40 ms |
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

/** The flag, as the gateway's command line carries it once it runs without the reducer. */
export const NO_MEMORY_REDUCER = '--no-memory-reducer';

/** Either spelling of the reducer's flag, on or off: an operator's own choice is kept. */
const REDUCER_FLAG = /^--(no[-_])?memory[-_]reducer$/;

/**
 * Makes sure V8's memory reducer is off, by replacing this process with itself started with
 * `--no-memory-reducer` (same pid, open descriptors and environment: a service manager or a
 * parent sees nothing change). V8 creates the reducer when it sets up the heap, so the flag
 * cannot be set at run time, and `NODE_OPTIONS` refuses it. Answers whether the reducer is off:
 * false where Node cannot replace a process (`process.execve`: Node.js 22.15 and later, not on
 * Windows), and the gateway then runs with it.
 */
export function memoryReducerOff(): boolean {
  if (process.execArgv.some((flag) => REDUCER_FLAG.test(flag))) return process.execArgv.some((flag) => /^--no[-_]memory/.test(flag));
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (typeof execve !== 'function' || process.platform === 'win32') return false;
  return execve.call(process, process.execPath, [process.execPath, ...process.execArgv, NO_MEMORY_REDUCER, ...process.argv.slice(1)], process.env);
}
