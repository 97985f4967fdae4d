/**
 * The records a gateway writes after a keyed write's answer went out: a retry of that key, and
 * the gateway closing, wait for them.
 */
import { describe, expect, it } from 'vitest';
import { PendingRecords } from '../../src/gateway/idempotency.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Whether `promise` has settled once the queued callbacks have run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  return settled;
}

describe('PendingRecords', () => {
  it("a retry of a key waits for that key's record only", async () => {
    const pending = new PendingRecords();
    const record = deferred();
    pending.add(1, 'k', record.promise);
    const sameKey = pending.written(1, 'k');
    expect(await isSettled(sameKey)).toBe(false);
    expect(await isSettled(pending.written(1, 'other'))).toBe(true);
    expect(await isSettled(pending.written(2, 'k'))).toBe(true);
    record.resolve();
    expect(await isSettled(sameKey)).toBe(true);
  });

  it('closing waits for every record being written, and a written one is forgotten', async () => {
    const pending = new PendingRecords();
    const first = deferred();
    const second = deferred();
    pending.add(1, 'a', first.promise);
    pending.add(1, 'b', second.promise);
    first.resolve();
    const drained = pending.drain();
    expect(await isSettled(drained)).toBe(false);
    second.resolve();
    expect(await isSettled(drained)).toBe(true);
    expect(await isSettled(pending.written(1, 'a'))).toBe(true);
  });
});
