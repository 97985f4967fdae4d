/** Keyed turns: one key's work in order, never overlapping; other keys' at once; failures end a turn. */
import { describe, expect, it } from 'vitest';
import { TurnsByKey } from '../../src/turns-by-key.js';

function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('TurnsByKey', () => {
  it("runs one key's work in the order asked, each after the last has ended", async () => {
    const turns = new TurnsByKey();
    const first = gate();
    const log: string[] = [];
    const a = turns.run('printer', async () => {
      log.push('a starts');
      await first.opened;
      log.push('a ends');
      return 'a';
    });
    const b = turns.run('printer', async () => {
      log.push('b runs');
      return 'b';
    });
    await tick();
    expect(log).toEqual(['a starts']);
    first.open();
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(log).toEqual(['a starts', 'a ends', 'b runs']);
    await tick();
    expect(turns.busyKeys).toBe(0);
  });

  it("runs different keys' work at once", async () => {
    const turns = new TurnsByKey();
    const held = gate();
    const log: string[] = [];
    void turns.run('one', () => held.opened);
    await turns.run('two', async () => void log.push('two ran'));
    expect(log).toEqual(['two ran']);
    await tick();
    expect(turns.busyKeys).toBe(1);
    held.open();
  });

  it('answers the caller before the turn ends when the work holds the key longer', async () => {
    const turns = new TurnsByKey();
    const closed = gate();
    const log: string[] = [];
    const answer = await turns.run(
      'printer',
      async () => 'printed',
      () => closed.opened,
    );
    expect(answer).toBe('printed');
    const next = turns.run('printer', async () => void log.push('next job'));
    await tick();
    expect(log).toEqual([]);
    closed.open();
    await next;
    expect(log).toEqual(['next job']);
  });

  it('ends a failed turn: its caller sees the failure, the next one runs', async () => {
    const turns = new TurnsByKey();
    const failed = turns.run('branch', () => Promise.reject(new Error('store down')));
    const next = turns.run('branch', async () => 'recorded');
    await expect(failed).rejects.toThrow('store down');
    expect(await next).toBe('recorded');
    const heldFailing = turns.run(
      'branch',
      async () => 1,
      () => Promise.reject(new Error('close failed')),
    );
    expect(await heldFailing).toBe(1);
    expect(await turns.run('branch', async () => 2)).toBe(2);
  });
});
