/**
 * The hub reads a successful result by hand (hub/result-frame.ts) rather than through the
 * protocol's `resultMessage` schema. Both must take and refuse the same frames: a change to one
 * that the other does not follow fails here.
 */
import { describe, expect, it } from 'vitest';
import { successfulResult } from '../../src/gateway/hub/result-frame.js';
import { resultMessage } from '../../src/protocol/messages.js';

const ok = { type: 'result', jobId: 'j1', ok: true, data: { folio: 7 } };

const frames: Array<[string, unknown]> = [
  ['a successful result', ok],
  ['one whose data is null', { ...ok, data: null }],
  ['one whose data is a list', { ...ok, data: [1, 2] }],
  ['one with a member the protocol does not know', { ...ok, extra: 1 }],
  ['one without data', { type: 'result', jobId: 'j1', ok: true }],
  ['a failed result', { type: 'result', jobId: 'j1', ok: false, error: { code: 'not_found', message: 'no' } }],
  ['ok as a string', { ...ok, ok: 'true' }],
  ['a numeric jobId', { ...ok, jobId: 1 }],
  ['no jobId', { type: 'result', ok: true, data: {} }],
  ['another type', { ...ok, type: 'heartbeat' }],
  ['null', null],
  ['a string', 'result'],
  ['a list', [ok]],
];

describe('successful results read by hand agree with the protocol schema', () => {
  it.each(frames)('%s', (_name, frame) => {
    const parsed = resultMessage.safeParse(frame);
    const schemaSays = parsed.success && parsed.data.ok ? parsed.data : undefined;
    expect(successfulResult(frame)).toEqual(schemaSays);
  });
});
