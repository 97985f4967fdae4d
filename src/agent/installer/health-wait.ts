/**
 * Whether a freshly started agent is healthy, from its /healthz (src/agent/health.ts): it must
 * answer with the expected version and keep answering from the same process (its uptime never
 * starts again) for `settleMs`. A release that crashes right after opening its port is caught
 * here, not reported healthy.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { httpGet, readText } from '../http-get.js';

export interface HealthAnswer {
  version: string;
  uptimeSec: number;
  jobsRunning: number;
}

export async function probeHealth(url: string): Promise<HealthAnswer | undefined> {
  try {
    const res = await httpGet(url, { timeoutMs: 2_000 });
    const text = await readText(res);
    if (res.statusCode !== 200) return undefined;
    const body = JSON.parse(text) as Partial<HealthAnswer>;
    return typeof body.version === 'string' ? { version: body.version, uptimeSec: body.uptimeSec ?? 0, jobsRunning: body.jobsRunning ?? 0 } : undefined;
  } catch {
    return undefined;
  }
}

/** Resolves undefined when healthy, or the reason it is not. `alive` false ends the wait at once. */
export async function waitHealthy(opts: {
  url: string;
  version: string;
  timeoutMs: number;
  settleMs: number;
  alive: () => boolean | undefined;
}): Promise<string | undefined> {
  const deadline = Date.now() + opts.timeoutMs;
  let since: number | undefined;
  let firstUptime = 0;
  while (Date.now() < deadline) {
    if (opts.alive() === false) return 'the agent process exited';
    const answer = await probeHealth(opts.url);
    if (answer?.version === opts.version) {
      if (since === undefined || answer.uptimeSec < firstUptime) {
        since = Date.now();
        firstUptime = answer.uptimeSec;
      }
      if (Date.now() - since >= opts.settleMs) return undefined;
    } else {
      since = undefined;
    }
    await sleep(500);
  }
  return `no lasting healthy answer within ${Math.round(opts.timeoutMs / 1000)} s`;
}

/**
 * Waits, up to `timeoutMs`, until the running agent (if any answers) runs no job, so that an
 * upgrade never cuts one short. The agent's graceful stop still finishes a job that starts
 * after this.
 */
export async function waitIdle(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answer = await probeHealth(url);
    if (!answer || answer.jobsRunning === 0) return;
    await sleep(250);
  }
}
