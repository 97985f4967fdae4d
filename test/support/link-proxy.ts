/**
 * A TCP proxy between an agent and the gateway, so a test can cut the link as the network does:
 * `sever` destroys both sockets at once and whatever was in flight is lost. `hold` keeps what
 * the agent sends from reaching the gateway until the link is cut: an answer lost on the way.
 */
import net from 'node:net';
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
  close(): Promise<void>;
}

export async function startLinkProxy(): Promise<LinkProxy> {
  let setTarget!: (target: URL) => void;
  const target = new Promise<URL>((resolve) => (setTarget = resolve));
  const pairs = new Set<{ agent: net.Socket; gateway: net.Socket }>();
  let held = false;

  const server = net.createServer((agent) => {
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
    agent.on('error', cut).on('close', cut);
    gateway.on('error', cut).on('close', cut);
    agent.on('data', (chunk) => {
      if (!held) gateway.write(chunk);
    });
    gateway.on('data', (chunk) => agent.write(chunk));
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
    async close() {
      sever();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
