/**
 * The agents bench's clients, in a process of their own (forked by agents.ts), as an integration
 * platform's servers are: this event loop does nothing else, so that its lateness is not the
 * other benches' idle stack in the bench's own process, yet it is still counted (below).
 * Parent → child: a `LoadOrder`; child → parent: its `LoadResult` (load-order.ts).
 *
 * Open loop at RATE_PER_SECOND for `seconds`: request i is due at start + i / rate and leaves then
 * (or as soon as this event loop gets to it), answered or not the ones before; its latency counts
 * from when it was due, so that a late start (this process falling behind) is counted rather than
 * hidden. Each request goes to another branch, request n (counted over every load of the run, from
 * `first`) to branch n × 7919 mod their number: ten thousand requests, ten thousand branches.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from './http-client.js';
import { API_KEY, RATE_PER_SECOND, type LoadOrder, type LoadResult } from './load-order.js';
import { percentile } from './measure.js';
import { until } from '../test/support/until.js';

/**
 * Many clients, as an integration platform's requests to many branches are: sixteen sockets (the
 * other benches' client) queue requests behind any stall, and that queue is the client's, not
 * the gateway's.
 */
const clients = new http.Agent({ keepAlive: true, maxSockets: 256 });

const DRAIN_MS = 30_000;

async function load({ url, licenseKeys, first, seconds }: LoadOrder): Promise<LoadResult> {
  const cpu = process.cpuUsage();
  const latencies: number[] = [];
  let failure: Error | undefined;
  let unanswered = 0;
  const total = RATE_PER_SECOND * seconds;
  const headers = { 'x-api-key': API_KEY };
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) * RATE_PER_SECOND) / 1000) + 1);
    for (; sent < due; sent++) {
      const dueAt = start + (sent * 1000) / RATE_PER_SECOND;
      const licenseKey = licenseKeys[((first + sent) * 7919) % licenseKeys.length]!;
      unanswered++;
      request(`${url}/turnos/${licenseKey}`, { headers, agent: clients }).then(
        (res) => {
          unanswered--;
          if (res.status !== 200) failure ??= new Error(`API answered ${res.status}: ${res.body}`);
          latencies.push(performance.now() - dueAt);
        },
        (error: Error) => {
          unanswered--;
          failure ??= error;
        },
      );
    }
    await sleep(1);
  }
  const sentPerSecond = total / ((performance.now() - start) / 1000);
  // A gateway that stops answering but keeps its sockets open must fail the bench, not hang it.
  await until(() => unanswered === 0, DRAIN_MS, 5).catch(() => {
    throw new Error(`${unanswered} requests unanswered ${DRAIN_MS / 1000} s after the load`);
  });
  if (failure) throw failure;
  const used = process.cpuUsage(cpu);
  const sorted = latencies.sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), sentPerSecond, cpuMs: (used.user + used.system) / 1000 };
}

process.on('message', (order: LoadOrder) => {
  load(order).then(
    (result) => process.send!(result),
    (error: Error) => {
      console.error(error);
      process.exit(1);
    },
  );
});
