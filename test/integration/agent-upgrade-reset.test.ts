/**
 * A client that resets its connection while the gateway checks its agent token: Node hands an
 * upgrade's socket over with no error listener, so the refusal written to the dead socket must
 * not throw in the gateway (an unhandled 'error' would end the process).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { AGENT_PATH } from '../../src/protocol/messages.js';
import { gatewayAloneSuite } from '../support/gateway-alone.js';

const alone = gatewayAloneSuite();

it('survives an agent connection reset while its token is checked', async () => {
  const { store } = alone();
  const port = Number(new URL(alone().wsUrl).port);
  // The token check waits on this lock until the client is gone.
  let release!: () => void;
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const held = store.db.transaction().execute(async (trx) => {
    await sql`LOCK TABLE gw_branches IN ACCESS EXCLUSIVE MODE`.execute(trx);
    locked();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await lockTaken;
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `GET ${AGENT_PATH} HTTP/1.1\r\nHost: gateway\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nAuthorization: Bearer agt_unknown\r\n\r\n`,
  );
  await sleep(200);
  socket.resetAndDestroy();
  await sleep(100);
  release();
  await held;
  // The refusal went to a reset socket; the gateway still answers.
  await sleep(200);
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  expect(res.status).toBe(200);
});
