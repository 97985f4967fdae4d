/**
 * Loopback printer addresses that fail in the ways real printers do, for the printing tests:
 * nobody listening (refused), nobody answering (connect never completes).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

export const LOOPBACK = '127.0.0.1';

export type Cleanups = Array<() => Promise<void> | void>;

export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; elapsedMs: number }> {
  const started = performance.now();
  const result = await work();
  return { result, elapsedMs: performance.now() - started };
}

/** A loopback port nobody listens on. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function connects(port: number, withinMs: number): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(port, LOOPBACK);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(undefined);
    }, withinMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/**
 * A loopback port where connects never complete (a printer that is not there): a stopped child
 * process listens with a backlog of 1 and filler connections fill its accept queue, so the kernel
 * drops further SYNs. What it starts is undone through `cleanups`.
 */
export async function unreachablePort(cleanups: Cleanups): Promise<number> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['-e', `const s = require('net').createServer(); s.listen({ host: '${LOOPBACK}', port: 0, backlog: 1 }, () => console.log(s.address().port));`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  cleanups.push(() => {
    child.kill('SIGKILL');
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (data: Buffer) => resolve(Number(data.toString().trim())));
    child.once('exit', () => reject(new Error('listener exited')));
  });
  child.kill('SIGSTOP');
  await sleep(100);
  for (let attempt = 0; attempt < 16; attempt++) {
    const filler = await connects(port, 300);
    if (!filler) return port;
    cleanups.push(() => {
      filler.destroy();
    });
  }
  throw new Error('the accept queue never filled');
}
