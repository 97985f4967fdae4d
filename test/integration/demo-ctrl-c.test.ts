/**
 * Ctrl-C on `npm start`, as a terminal sends it: SIGINT to the whole foreground process group.
 * The demo stops its agents and gateway first and its PostgreSQL last, so nothing it stops logs a
 * failure, and it leaves no server running. Before, PostgreSQL was in the same group, shut down
 * at the keystroke, and the gateway logged a stack trace per branch as its store vanished.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { freePort } from '../../src/embedded-postgres/cluster.js';
import { until } from '../support/until.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const refuses = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });

it('stops everything on Ctrl-C to its process group, PostgreSQL last, with nothing logged as failed', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1' };
  delete env.GATEWAY_DATABASE_URL;
  // A group of its own, as a shell gives a foreground job.
  const demo = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'demo'], { cwd: ROOT, env, detached: true });
  let out = '';
  demo.stdout.on('data', (d) => (out += d));
  demo.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => demo.on('close', (code) => resolve(code)));
  try {
    await until(() => out.includes('Press Ctrl-C to stop.'), 90_000);
    const postgresPort = Number(/postgres(?:ql)?:\/\/[^@]+@127\.0\.0\.1:(\d+)\//.exec(out)?.[1]);
    expect(postgresPort).toBeGreaterThan(0);
    process.kill(-demo.pid!, 'SIGINT');
    expect(await exited, out.slice(-3000)).toBe(0);
    expect(out.split('\n').filter((line) => /"level":(40|50|60)/.test(line))).toEqual([]);
    expect(await refuses(postgresPort)).toBe(true);
  } finally {
    if (demo.exitCode === null) process.kill(-demo.pid!, 'SIGKILL');
  }
});
