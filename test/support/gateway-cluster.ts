/**
 * A gateway cluster for tests: a real `nats-server` on a free port and gateway instances as
 * child processes (`branch-agent gateway`), so a test can SIGKILL one. Without nats-server on
 * the PATH, `natsServerMissing` says why the cluster tests skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { startCli } from './cli.js';
import { until } from './until.js';

export function natsServerMissing(): string | undefined {
  const found = spawnSync('nats-server', ['--version'], { stdio: 'ignore' });
  return found.error ? 'nats-server is not on the PATH (apt-get install -y nats-server)' : undefined;
}

export interface NatsServer {
  url: string;
  stop(): Promise<void>;
}

/** With `token`, clients must present it; `url` carries it as operators write NATS_URL. */
export async function startNatsServer(opts: { token?: string } = {}): Promise<NatsServer> {
  const port = await freePort();
  const auth = opts.token ? ['--auth', opts.token] : [];
  const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), ...auth], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (d) => (output += d));
  await until(() => output.includes('Server is ready') || child.exitCode !== null, 10_000);
  if (child.exitCode !== null) throw new Error(`nats-server exited: ${output}`);
  return { url: `nats://${opts.token ? `${opts.token}@` : ''}127.0.0.1:${port}`, stop: () => stopChild(child, 'SIGTERM') };
}

export interface GatewayInstance {
  url: string;
  process: ChildProcess;
  /** What it printed, for a failing test's message. */
  output(): string;
  /** SIGTERM (a rolling restart's stop) or SIGKILL; resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface InstanceSettings {
  databaseUrl: string;
  natsUrl: string;
  dir: string;
  name: string;
  /** The same for every instance of a cluster. */
  webhookKey: string;
  port?: number;
  gateway?: Record<string, unknown>;
}

export const newWebhookKey = () => randomBytes(32).toString('base64');

export async function startInstance(settings: InstanceSettings): Promise<GatewayInstance> {
  const port = settings.port ?? (await freePort());
  const configFile = path.join(settings.dir, `${settings.name}.json`);
  writeFileSync(
    configFile,
    JSON.stringify({
      gateway: {
        host: '127.0.0.1',
        port,
        databaseUrl: settings.databaseUrl,
        cluster: { natsUrl: settings.natsUrl },
        webhookKey: settings.webhookKey,
        dataDir: path.join(settings.dir, settings.name),
        log: { level: 'warn' },
        ...settings.gateway,
      },
    }),
  );
  const child = startCli(['gateway', '-c', configFile]);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  await until(
    async () => {
      if (child.exitCode !== null) throw new Error(`gateway ${settings.name} exited: ${output}`);
      return (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
    },
    60_000,
    100,
  );
  return { url, process: child, output: () => output, stop: (signal = 'SIGTERM') => stopChild(child, signal) };
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
