import { describe, expect, it } from 'vitest';
import { insertChunks } from '../../src/pos/bulk-insert.js';

describe('insertChunks', () => {
  it('keeps every statement within 2,000 parameters and 1,000 rows, in order, losing nothing', () => {
    const wide = Array.from({ length: 500 }, (_, i) => Object.fromEntries(Array.from({ length: 38 }, (_, c) => [`c${c}`, i])));
    const chunks = insertChunks(wide);
    expect(chunks.map((c) => c.length)).toEqual([52, 52, 52, 52, 52, 52, 52, 52, 52, 32]);
    expect(chunks.flat()).toEqual(wide);

    const narrow = Array.from({ length: 2_500 }, (_, i) => ({ id: i }));
    expect(insertChunks(narrow).map((c) => c.length)).toEqual([1_000, 1_000, 500]);
  });

  it('counts the union of the rows’ columns and sends nothing for no rows', () => {
    expect(insertChunks([{ a: 1 }, { b: 2 }, { c: 3 }]).map((c) => c.length)).toEqual([3]);
    expect(insertChunks(Array.from({ length: 1_001 }, (_, i) => (i % 2 ? { a: i } : { b: i }))).map((c) => c.length)).toEqual([1_000, 1]);
    expect(insertChunks([])).toEqual([]);
  });
});
