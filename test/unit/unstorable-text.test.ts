/** The walk every request body goes through before any route runs. */
import { describe, expect, it } from 'vitest';
import { unstorableTextErrors } from '../../src/gateway/unstorable-text.js';

describe('unstorableTextErrors', () => {
  it('names the path of each bad string, in arrays and objects alike', () => {
    const errors = unstorableTextErrors({ a: [1, 'x\u0000', { b: '\ud800' }, true], ok: 'fine' }, ['body']);
    expect(errors.map((e) => e.path)).toEqual(['body.a.1', 'body.a.2.b']);
  });

  it('lists the first 20 only: a body of nothing else is not answered with a list as long', () => {
    const errors = unstorableTextErrors({ a: Array<string>(1000).fill('\u0000') }, ['body']);
    expect(errors.map((e) => e.path)).toEqual(Array.from({ length: 20 }, (_, i) => `body.a.${i}`));
  });

  it('walks 10,000 numbers in a few milliseconds (the shift-list search)', () => {
    const body = { idTurnos: Array.from({ length: 10_000 }, (_, i) => i + 1) };
    unstorableTextErrors(body, ['body']);
    const start = performance.now();
    for (let i = 0; i < 10; i++) expect(unstorableTextErrors(body, ['body'])).toEqual([]);
    expect((performance.now() - start) / 10).toBeLessThan(3);
  });
});
