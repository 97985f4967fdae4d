/**
 * Simulated branch agents in a process of their own (forked by agents.ts): real WebSocket
 * connections speaking the agent protocol, each saying hello as an agent does, answering every
 * job at once with an empty shift list, and every 15 s sending a heartbeat and a ping (as the
 * agent's connection does; the gateway pings them too, and ws answers with pongs). The beats are
 * spread evenly over the agents, as agents started at different times send them. Parent → child:
 * `{ url, branches: [licenseKey, token][] }`, then `'cpu'`; child → parent: `'connected'` once all
 * said hello, then `{ cpuMs }`: this process's CPU time since the last `'cpu'` (or since
 * 'connected'), so that the bench can show it is not what limits the rate.
 *
 * Ten thousand agents in one process must cost it little, or the bench measures this process:
 * one timer for every agent's beats, and results answered from a precomputed frame around the
 * job's id rather than through JSON (the gateway writes `type` and `jobId` first).
 */
import WebSocket from 'ws';
import { AGENT_PATH, frameJson } from '../src/protocol/messages.js';

const HEARTBEAT_MS = 15_000;
const CONNECTING_AT_ONCE = 100;
const TICK_MS = 100;
const JOB_PREFIX = '{"type":"job","jobId":"';
const RESULT_HEAD = '{"type":"result","jobId":"';
const RESULT_TAIL = `",${JSON.stringify({ ok: true, data: { items: [], page: 1, pageSize: 50, total: 0 } }).slice(1)}`;

const health = () => ({ sentAt: new Date().toISOString(), posDatabase: 'ok', jobsRunning: 0, lastError: null });

/** The job id of a job frame, without parsing the whole message; undefined for any other frame. */
function jobIdOf(raw: WebSocket.RawData): string | undefined {
  if (!Buffer.isBuffer(raw) || raw.length < JOB_PREFIX.length + 36) return undefined;
  if (raw.toString('latin1', 0, JOB_PREFIX.length) !== JOB_PREFIX) return undefined;
  return raw.toString('latin1', JOB_PREFIX.length, JOB_PREFIX.length + 36);
}

function connect(url: string, licenseKey: string, token: string): Promise<WebSocket> {
  const ws = new WebSocket(new URL(AGENT_PATH, url.replace(/^http/, 'ws')), { headers: { authorization: `Bearer ${token}` } });
  ws.on('message', (raw) => {
    const jobId = jobIdOf(raw);
    if (jobId !== undefined) ws.send(RESULT_HEAD + jobId + RESULT_TAIL);
  });
  ws.on('open', () =>
    ws.send(JSON.stringify({ type: 'hello', licenseKey, workerId: `sim-${licenseKey}`, agentVersion: 'bench', posVersion: null, health: health() })),
  );
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    // The welcome says the hello was taken: the agent is then in the hub.
    ws.once('message', (raw) => {
      if ((frameJson(raw) as { type?: string } | undefined)?.type === 'welcome') resolve(ws);
      else reject(new Error(`${licenseKey}: the gateway answered the hello with something else than a welcome`));
    });
  });
}

/** Every tick, the next slice of agents sends its heartbeat and its ping. */
function beat(sockets: WebSocket[]): void {
  const perTick = Math.ceil((sockets.length * TICK_MS) / HEARTBEAT_MS);
  let next = 0;
  setInterval(() => {
    const heartbeat = JSON.stringify({ type: 'heartbeat', ...health() });
    for (let i = 0; i < perTick; i++) {
      const ws = sockets[next++ % sockets.length]!;
      if (ws.readyState !== ws.OPEN) continue;
      ws.send(heartbeat);
      ws.ping();
    }
  }, TICK_MS);
}

let cpu = process.cpuUsage();

process.on('message', (message: unknown) => {
  if (message === 'cpu') {
    const used = process.cpuUsage(cpu);
    cpu = process.cpuUsage();
    process.send!({ cpuMs: (used.user + used.system) / 1000 });
    return;
  }
  void (async () => {
    const { url, branches } = message as { url: string; branches: Array<[string, string]> };
    const sockets: WebSocket[] = [];
    for (let i = 0; i < branches.length; i += CONNECTING_AT_ONCE) {
      sockets.push(...(await Promise.all(branches.slice(i, i + CONNECTING_AT_ONCE).map(([licenseKey, token]) => connect(url, licenseKey, token)))));
    }
    beat(sockets);
    cpu = process.cpuUsage();
    process.send!('connected');
  })();
});
