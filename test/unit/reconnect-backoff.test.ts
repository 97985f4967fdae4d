/**
 * The agent's reconnection (docs/architecture.md, "Reconnecting"): it retries forever with
 * exponential backoff from 1 s to 60 s with full jitter, reset after 5 minutes connected.
 *
 * `backoffDelay` is tested as a function; then a real GatewayConnection with its defaults is
 * dropped again and again by a real WebSocket server, on fake timers and a fake clock: the delay
 * before each retry is read off the clock as the retry timer fires, and a connection's age is
 * the clock moved on, so five minutes take no time.
 */
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { backoffDelay, GatewayConnection } from '../../src/agent/connection.js';

describe('backoffDelay', () => {
  const highest = () => 1 - Number.EPSILON;

  it('doubles from the base up to the maximum, then stays there', () => {
    const ceilings = Array.from({ length: 10 }, (_, attempt) => backoffDelay(attempt, 1_000, 60_000, highest));
    expect(ceilings).toEqual([999, 1_999, 3_999, 7_999, 15_999, 31_999, 59_999, 59_999, 59_999, 59_999]);
    // However many attempts failed before (2 ** 2000 is Infinity).
    expect(backoffDelay(2_000, 1_000, 60_000, highest)).toBe(59_999);
  });

  it('is full jitter: anywhere from 0 to the ceiling, as the random draw says', () => {
    for (const attempt of [0, 3, 6, 20]) {
      const ceiling = Math.min(60_000, 1_000 * 2 ** attempt);
      expect(backoffDelay(attempt, 1_000, 60_000, () => 0)).toBe(0);
      expect(backoffDelay(attempt, 1_000, 60_000, () => 0.25)).toBe(ceiling / 4);
      expect(backoffDelay(attempt, 1_000, 60_000, () => 0.5)).toBe(ceiling / 2);
    }
  });

  it('never reaches the ceiling itself, with Math.random', () => {
    for (let i = 0; i < 1_000; i++) {
      const attempt = i % 10;
      const delay = backoffDelay(attempt, 1_000, 60_000);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(Math.min(60_000, 1_000 * 2 ** attempt));
      expect(Number.isInteger(delay)).toBe(true);
    }
  });
});

describe('a GatewayConnection with its default backoff', () => {
  let server: WebSocketServer | undefined;
  let connection: GatewayConnection | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    await connection?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** Polls on the real clock (the fake one stands still). */
  async function until(check: () => boolean): Promise<void> {
    const end = performance.now() + 10_000;
    while (!check()) {
      if (performance.now() > end) throw new Error('not within 10 s');
      await sleep(5);
    }
  }

  it('retries after 1, 2, 4 … 60 s at most, and starts again from 1 s after 5 minutes connected', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    // The jitter's draw at its highest: each delay is its ceiling, less a millisecond.
    vi.spyOn(Math, 'random').mockReturnValue(1 - Number.EPSILON);

    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server!.once('listening', resolve));
    const sockets: WebSocket[] = [];
    server.on('connection', (ws) => sockets.push(ws));
    let connected = false;
    connection = new GatewayConnection({
      gatewayUrls: [`http://127.0.0.1:${(server.address() as AddressInfo).port}`],
      token: 't',
      log: pino({ level: 'silent' }),
      hello: () => ({ type: 'hello', licenseKey: 'TEST000000000001', workerId: 'w', agentVersion: '0', posVersion: null }),
      onJob: () => undefined,
    });
    connection.onChange((now) => (connected = now));
    connection.start();

    /** The gateway drops the connection after it lasted `forMs`; answers how long the agent waited before its next attempt. */
    const dropAfter = async (forMs: number): Promise<number> => {
      const count = sockets.length;
      await until(() => connected);
      vi.setSystemTime(Date.now() + forMs);
      sockets.at(-1)!.terminate();
      await until(() => !connected);
      // The retry is the one timer left: nothing else would move the clock.
      expect(vi.getTimerCount()).toBe(1);
      const droppedAt = Date.now();
      vi.advanceTimersToNextTimer();
      const waited = Date.now() - droppedAt;
      await until(() => sockets.length === count + 1);
      return waited;
    };

    await until(() => sockets.length === 1);
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) waits.push(await dropAfter(0));
    expect(waits).toEqual([999, 1_999, 3_999, 7_999, 15_999, 31_999, 59_999, 59_999]);
    // Connected a moment short of 5 minutes: still backing off.
    expect(await dropAfter(299_999)).toBe(59_999);
    // Connected for 5 minutes: the next outage starts from 1 s again, then grows as before.
    expect(await dropAfter(300_000)).toBe(999);
    expect(await dropAfter(0)).toBe(1_999);
  });
});
