/** The one pass over a body's bytes that bounds its nesting and its values before it is parsed. */
import { describe, expect, it } from 'vitest';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../src/gateway/json-shape.js';

const shape = (text: string) => jsonShapeProblem(Buffer.from(text));

describe('jsonShapeProblem', () => {
  it('takes nesting up to the limit and refuses one level more, arrays and objects alike', () => {
    expect(shape(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`)).toBeUndefined();
    expect(shape(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`)).toBe('depth');
    expect(shape(`${'{"a":['.repeat(MAX_JSON_DEPTH / 2)}1${']}'.repeat(MAX_JSON_DEPTH / 2)}`)).toBeUndefined();
    expect(shape(`${'{"a":['.repeat(MAX_JSON_DEPTH / 2 + 1)}`)).toBe('depth');
  });

  it('counts what is inside strings as text, escaped quotes and backslashes included', () => {
    const brackets = '['.repeat(1000);
    expect(shape(JSON.stringify({ a: brackets, b: `\\"${brackets}`, c: `x\\` }))).toBeUndefined();
    expect(shape(JSON.stringify([',,,,'.repeat(MAX_JSON_VALUES)]))).toBeUndefined();
    // A string ending in an escaped backslash closes at the next quote: the brackets after it count.
    expect(shape(`["\\\\",${'['.repeat(MAX_JSON_DEPTH)}`)).toBe('depth');
  });

  it('counts array items and object members, all levels together', () => {
    const half = Math.floor(MAX_JSON_VALUES / 2) - 2;
    expect(shape(JSON.stringify([Array(half).fill(1), Array(half).fill(1)]))).toBeUndefined();
    expect(shape(JSON.stringify([Array(half).fill(1), Array(half + 10).fill(1)]))).toBe('values');
    expect(shape(JSON.stringify(Object.fromEntries(Array.from({ length: MAX_JSON_VALUES + 1 }, (_, i) => [`k${i}`, i]))))).toBe('values');
  });

  it('reads 4 MiB in a few milliseconds', () => {
    const body = Buffer.from(JSON.stringify({ note: 'x'.repeat(4 * 1024 * 1024 - 20) }));
    jsonShapeProblem(body);
    const started = performance.now();
    expect(jsonShapeProblem(body)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(10);
  });
});
