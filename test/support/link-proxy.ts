/**
 * A TCP proxy between an agent and the gateway, so a test can cut the link as the network does:
 * `sever` destroys both sockets at once and whatever was in flight is lost. `hold` keeps what
 * the agent sends from reaching the gateway until the link is cut: an answer lost on the way.
 * `cutAgentSide` leaves the link half-open, as a NAT box that forgot it does.
 */
import net from 'node:net';
import pino from 'pino';
import { openPos, type PosRuntime } from '../../src/pos/runtime.js';
import { newPosDatabase } from './databases.js';
import { LOOPBACK } from './printer-ports.js';

export interface LinkProxy {
  /** Where the agent connects. */
  url: string;
  /** The gateway the proxy forwards to; connections made before this wait for it. */
  connectTo(gatewayUrl: string): void;
  /** From now until the next `sever`, nothing the agent sends reaches the gateway. */
  hold(): void;
  /** Cuts every connection through the proxy; the agent reconnects through it by itself. */
  sever(): void;
  /**
   * The next time the connecting side sends bytes holding `marker` (a database client's COMMIT),
   * they reach the far side, whose answer is lost: that connection is cut right after them, and
   * `then` runs.
   */
  cutAfter(marker: Buffer, then?: () => void): void;
  /** Whether a `cutAfter` is still waiting for its marker. */
  cutPending(): boolean;
  /** While `down`, new connections are closed as they come, as a server that stopped listening does. */
  setDown(down: boolean): void;
  /**
   * Closes the agent's side of every connection and refuses new ones, while the gateway's side
   * stays open and hears nothing more. Resolves once the gateway has closed its side.
   */
  cutAgentSide(): Promise<void>;
  close(): Promise<void>;
}

export async function startLinkProxy(): Promise<LinkProxy> {
  let setTarget!: (target: URL) => void;
  const target = new Promise<URL>((resolve) => (setTarget = resolve));
  const pairs = new Set<{ agent: net.Socket; gateway: net.Socket }>();
  let held = false;
  let halfOpen = false;
  let down = false;
  let cutMarker: Buffer | undefined;
  let afterCut: (() => void) | undefined;

  const server = net.createServer((agent) => {
    if (halfOpen || down) return void agent.destroy();
    // Nothing is read from the agent until the gateway's side is connected.
    agent.pause();
    const gateway = new net.Socket();
    const pair = { agent, gateway };
    pairs.add(pair);
    const cut = () => {
      pairs.delete(pair);
      agent.destroy();
      gateway.destroy();
    };
    // Half-open, the agent's side going away is not passed on: the gateway's side stays silent.
    const agentGone = () => {
      if (!halfOpen) cut();
    };
    agent.on('error', agentGone).on('close', agentGone);
    gateway.on('error', cut).on('close', cut);
    agent.on('data', (chunk: Buffer) => {
      if (cutMarker && chunk.includes(cutMarker)) {
        cutMarker = undefined;
        pairs.delete(pair);
        // Delivered whole, then the far side hears the connection end; this side never hears back
        // (and its going must not destroy the far side before the bytes are out).
        agent
          .removeAllListeners('close')
          .removeAllListeners('error')
          .on('error', () => undefined);
        agent.destroy();
        gateway.end(chunk);
        afterCut?.();
        return;
      }
      if (!held && !halfOpen) gateway.write(chunk);
    });
    gateway.on('data', (chunk) => {
      if (!halfOpen) agent.write(chunk);
    });
    void target.then((url) => {
      if (pairs.has(pair)) gateway.connect(Number(url.port), url.hostname, () => agent.resume());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const { port } = server.address() as net.AddressInfo;
  const sever = () => {
    held = false;
    for (const { agent, gateway } of [...pairs]) {
      agent.destroy();
      gateway.destroy();
    }
    pairs.clear();
  };

  return {
    url: `http://${LOOPBACK}:${port}`,
    connectTo: (gatewayUrl) => setTarget(new URL(gatewayUrl)),
    hold() {
      held = true;
    },
    sever,
    cutAfter(marker, then) {
      cutMarker = marker;
      afterCut = then;
    },
    cutPending: () => cutMarker !== undefined,
    setDown(value) {
      down = value;
    },
    async cutAgentSide() {
      halfOpen = true;
      const gatewaySides = [...pairs].map(({ agent, gateway }) => {
        agent.destroy();
        return new Promise((resolve) => (gateway.destroyed ? resolve(undefined) : gateway.once('close', resolve)));
      });
      await Promise.all(gatewaySides);
    },
    async close() {
      sever();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A new branch database opened through a proxy of its own (PostgreSQL only), so a test can cut the agent's database link. */
export async function posThroughProxy(): Promise<{ pos: PosRuntime; proxy: LinkProxy }> {
  const config = await newPosDatabase();
  if (config.dialect !== 'postgres') throw new Error('this suite runs on PostgreSQL only');
  const direct = new URL(config.url);
  const proxy = await startLinkProxy();
  proxy.connectTo(`http://${direct.host}`);
  const viaProxy = new URL(direct);
  viaProxy.host = new URL(proxy.url).host;
  return { pos: await openPos({ ...config, url: viaProxy.toString() }, pino({ level: 'silent' })), proxy };
}
