/** The answer's envelope: the same keys, in the same order, as spreading the result after the job's fields. */
import { describe, expect, it } from 'vitest';
import { envelope } from '../../src/gateway/routes/envelope.js';

const outcome = { jobId: 'job-1', workerId: 'worker-1', dispatchedAt: '2026-11-27T10:00:00.000Z', ok: true };

describe('the envelope of an answer', () => {
  it('puts the job id, worker and dispatch time of a list first, then the result, as a spread would', () => {
    const data = { items: [1], page: 1, pageSize: 50, total: 1 };
    const body = envelope({ envelope: 'page', jobId: true }, outcome, data);
    expect(Object.keys(body)).toEqual(['jobId', 'workerId', 'dispatchedAt', 'items', 'page', 'pageSize', 'total']);
    expect(JSON.stringify(body)).toBe(JSON.stringify({ jobId: 'job-1', workerId: 'worker-1', dispatchedAt: outcome.dispatchedAt, ...data }));
  });

  it('leaves the job id out of the lists that show none, and gives a result only its job id', () => {
    expect(Object.keys(envelope({ envelope: 'list', jobId: false }, outcome, { items: [] }))).toEqual(['workerId', 'dispatchedAt', 'items']);
    expect(envelope({ envelope: 'result', jobId: true }, outcome, { folio: 7 })).toEqual({ jobId: 'job-1', folio: 7 });
  });

  it('lets a result field of the same name win, and keeps a key named __proto__ a key', () => {
    const data = JSON.parse('{"workerId":"from-the-result","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const body = envelope({ envelope: 'page', jobId: true }, outcome, data);
    expect(body.workerId).toBe('from-the-result');
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.keys(body)).toContain('__proto__');
    expect((body as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
