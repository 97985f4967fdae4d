/** What the agent reports about itself: errors on its side only, and the database as last pinged. */
import { describe, expect, it } from 'vitest';
import { HealthReporter } from '../../src/agent/health-report.js';

const failed = (code: string, message = 'x') => ({ type: 'result' as const, jobId: 'j', ok: false as const, error: { code, message } });

describe('HealthReporter', () => {
  it("keeps the agent's own failures (5xx) and not the caller's mistakes (4xx)", () => {
    const reporter = new HealthReporter({ pingDatabase: () => Promise.resolve(), jobsRunning: () => 2, wallClock: () => Date.parse('2026-01-02T03:04:05Z') });
    reporter.noteResult(failed('validation_failed'));
    reporter.noteResult({ type: 'result', jobId: 'j', ok: true, data: {} });
    expect(reporter.snapshot()).toEqual({ sentAt: '2026-01-02T03:04:05.000Z', posDatabase: 'ok', jobsRunning: 2, lastError: null });
    reporter.noteResult(failed('printer_failed', 'printer 10.0.0.5:9100 did not answer'));
    expect(reporter.snapshot().lastError).toEqual({ message: 'printer_failed: printer 10.0.0.5:9100 did not answer', at: '2026-01-02T03:04:05.000Z' });
  });

  it('reports the database unreachable while its ping fails, and keeps that error once it answers', async () => {
    let down = true;
    const reporter = new HealthReporter({ pingDatabase: () => (down ? Promise.reject(new Error('ECONNREFUSED')) : Promise.resolve()), jobsRunning: () => 0 });
    expect(await reporter.check()).toMatchObject({ posDatabase: 'unreachable', lastError: { message: 'POS database unreachable: ECONNREFUSED' } });
    down = false;
    expect(await reporter.check()).toMatchObject({ posDatabase: 'ok', lastError: { message: 'POS database unreachable: ECONNREFUSED' } });
  });

  it('names its runtime and platform for the hello', () => {
    const identity = new HealthReporter({ pingDatabase: () => Promise.resolve(), jobsRunning: () => 0 }).identity();
    expect(identity.nodeVersion).toBe(process.version);
    expect(identity.os).toMatch(new RegExp(`^${process.platform} \\S+ ${process.arch}$`));
    expect(Number.isNaN(Date.parse(identity.startedAt!))).toBe(false);
  });
});
