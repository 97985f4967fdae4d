/**
 * Simulated branch agents in a process of their own (forked by agents.ts): real WebSocket
 * connections speaking the agent protocol, each saying hello as an agent does, answering every
 * job at once with an empty shift list and sending a heartbeat every 15 s (spread evenly over
 * the agents, as agents started at different times send them). Parent → child:
 * `{ url, branches: [licenseKey, token][] }`; child → parent: `'connected'` once all said hello.
 */
import WebSocket from 'ws';
import { AGENT_PATH, frameJson } from '../src/protocol/messages.js';

const HEARTBEAT_MS = 15_000;
const CONNECTING_AT_ONCE = 100;
const EMPTY_PAGE = { items: [], page: 1, pageSize: 50, total: 0 };

const health = () => ({ sentAt: new Date().toISOString(), posDatabase: 'ok', jobsRunning: 0, lastError: null });

function connect(url: string, licenseKey: string, token: string): Promise<WebSocket> {
  const ws = new WebSocket(new URL(AGENT_PATH, url.replace(/^http/, 'ws')), { headers: { authorization: `Bearer ${token}` } });
  ws.on('message', (raw) => {
    const message = frameJson(raw) as { type?: string; jobId?: string };
    if (message.type === 'job') ws.send(JSON.stringify({ type: 'result', jobId: message.jobId, ok: true, data: EMPTY_PAGE }));
  });
  ws.on('open', () =>
    ws.send(JSON.stringify({ type: 'hello', licenseKey, workerId: `sim-${licenseKey}`, agentVersion: 'bench', posVersion: null, health: health() })),
  );
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    // The welcome says the hello was taken: the agent is then in the hub.
    ws.once('message', () => resolve(ws));
  });
}

process.once('message', (message: unknown) => {
  void (async () => {
    const { url, branches } = message as { url: string; branches: Array<[string, string]> };
    const sockets: WebSocket[] = [];
    for (let i = 0; i < branches.length; i += CONNECTING_AT_ONCE) {
      sockets.push(...(await Promise.all(branches.slice(i, i + CONNECTING_AT_ONCE).map(([licenseKey, token]) => connect(url, licenseKey, token)))));
    }
    // One timer for all: every tick, the next slice of agents beats.
    const tickMs = 100;
    const perTick = Math.ceil((sockets.length * tickMs) / HEARTBEAT_MS);
    let next = 0;
    setInterval(() => {
      for (let i = 0; i < perTick; i++) {
        const ws = sockets[next++ % sockets.length]!;
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'heartbeat', ...health() }));
      }
    }, tickMs);
    process.send!('connected');
  })();
});
