/**
 * The agent's own exactly-once record, met by a second copy of a job (a retry whose gateway
 * record was lost, a job delivered twice): the key is recorded as the write's last statement, so
 * the copy runs, is stopped by the record or refused by what the first copy wrote, and either
 * way answers the first copy's result without writing again.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/agent/runner.js';
import type { JobMessage } from '../../src/protocol/messages.js';
import { accountSuite, refresco, tacos } from '../support/accounts.js';
import { testRunner } from '../support/job-runner.js';
import { BRANCH } from '../support/stack.js';

const { stack, openOrder, lines, counts } = accountSuite();
let runner: JobRunner;
beforeAll(() => {
  runner = testRunner(stack().agents.get(BRANCH)!.pos);
});

/** A keyed job; copies of it share the key and the fingerprint, as a retry's do. */
function job(op: string, params: Record<string, unknown>, key = randomUUID(), fingerprint = 'f'): JobMessage {
  return { type: 'job', jobId: randomUUID(), op, params, budgetMs: 30_000, idempotency: { scope: 'replays', key, fingerprint } };
}

describe("a second copy of a job answers the first copy's result", () => {
  it('stopped by the record: lines added once', async () => {
    const folio = await openOrder([tacos]);
    const add = job('orders.addLines', { folio, productos: [{ ...refresco, movimiento: 1 }] });
    const first = await runner.run(add);
    expect(first.ok, JSON.stringify(first)).toBe(true);
    const again = await runner.run({ ...add, jobId: randomUUID() });
    expect(again).toEqual({ ...first, jobId: again.jobId });
    expect((await lines(folio)).map((l) => l.idproducto)).toEqual(['3001', '1005']);
  });

  it('refused by what the first copy wrote: an account paid once, its answer replayed', async () => {
    const folio = await openOrder([tacos]);
    const pay = job('orders.pay', { folio, pagos: [{ idFormaDePago: 'EFE', importe: 200 }] });
    const first = await runner.run(pay);
    expect(first.ok, JSON.stringify(first)).toBe(true);
    const before = await counts();
    const again = await runner.run({ ...pay, jobId: randomUUID() });
    expect(again).toEqual({ ...first, jobId: again.jobId });
    expect(await counts()).toEqual(before);
  });

  it('two copies at once: one writes, both answer the same', async () => {
    const folio = await openOrder([tacos]);
    const add = job('orders.addLines', { folio, productos: [{ ...refresco, movimiento: 1 }] });
    const [a, b] = await Promise.all([runner.run(add), runner.run({ ...add, jobId: randomUUID() })]);
    expect(a.ok, JSON.stringify(a)).toBe(true);
    expect(b).toEqual({ ...a, jobId: b.jobId });
    expect((await lines(folio)).map((l) => l.idproducto)).toEqual(['3001', '1005']);
  });

  it('the same key with another request is refused and writes nothing', async () => {
    const folio = await openOrder([tacos]);
    const key = randomUUID();
    expect((await runner.run(job('orders.addLines', { folio, productos: [{ ...refresco, movimiento: 1 }] }, key))).ok).toBe(true);
    const before = await counts();
    const other = await runner.run(job('orders.addLines', { folio, productos: [{ ...refresco, movimiento: 1, cantidad: 1 }] }, key, 'another'));
    expect(other).toMatchObject({ ok: false, error: { code: 'idempotency_key_reused' } });
    expect(await counts()).toEqual(before);
  });
});
