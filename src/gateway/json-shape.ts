/**
 * The shape of a JSON text, measured on its bytes before it is parsed: how deeply it nests and
 * how many values it holds. Everything after the parser (Fastify's prototype check, the
 * unstorable-text walk, the schemas) walks the parsed value, some of it recursively, and the
 * parse itself takes time in proportion to the values: a body of ten thousand `[` overflowed the
 * stack, and four megabytes of `1,` held the event loop for tens of milliseconds. One pass over
 * the bytes, strings skipped natively, bounds both before any of that runs.
 */

/** Deeper than any request of the API (an order line's modifiers are 4 levels down). */
export const MAX_JSON_DEPTH = 32;
/**
 * Array items and object members, all levels together. The largest request of the API, 10,000
 * shift ids or 500 order lines, holds well under a tenth of it.
 */
export const MAX_JSON_VALUES = 100_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** Past a limit, which one; undefined when the text is within both. Invalid JSON is left to the parser. */
export function jsonShapeProblem(bytes: Uint8Array): 'depth' | 'values' | undefined {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === QUOTE) {
      i = closingQuote(bytes, i);
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return 'depth';
      values++;
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--;
    } else if (byte === COMMA && ++values > MAX_JSON_VALUES) {
      return 'values';
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opened at `open` (the end of the text if none does). */
function closingQuote(bytes: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at === -1) return bytes.length;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
