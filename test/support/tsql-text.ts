/**
 * Reading T-SQL text as Kysely's compiler writes it (lower-case keywords, "quoted" names,
 * 'literals'), for checks that need no server: the saved T-SQL (test/unit/tsql-limits.test.ts)
 * and the statements a test itself sends (test/e2e/api-properties.test.ts).
 */

/** Skips the literal or quoted name opening at `i`; returns its last index. */
function skipQuoted(text: string, i: number): number {
  const end = text.indexOf(text[i]!, i + 1);
  return end === -1 ? text.length : end;
}

/** Where the parenthesis opened at `open` closes, skipping quoted names and literals. */
export function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"') i = skipQuoted(text, i);
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  throw new Error(`unbalanced: ${text.slice(open, open + 80)}`);
}

/** A list split at its own commas, not those of nested calls or literals. */
export function splitList(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"') i = skipQuoted(text, i);
    else if (ch === '(') i = closing(text, i);
    else if (ch === ',') {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** Where a select body's own `from` starts, not a subquery's (its length when it has none). */
export function topLevelFrom(body: string): number {
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === "'" || ch === '"') i = skipQuoted(body, i);
    else if (ch === '(') i = closing(body, i);
    else if (body.startsWith(' from ', i)) return i;
  }
  return body.length;
}

/** The arguments of every call of `fn` in a statement. */
export function callsOf(sql: string, fn: string): string[][] {
  const calls: string[][] = [];
  for (const match of sql.matchAll(new RegExp(`\\b${fn}\\(`, 'g'))) {
    const open = match.index + fn.length;
    calls.push(splitList(sql.slice(open + 1, closing(sql, open))));
  }
  return calls;
}

/** What SQL Server 2014 does not accept, as far as the text shows it. */
const NOT_TSQL_2014: Array<[string, RegExp]> = [
  ['LIMIT (T-SQL pages with OFFSET … FETCH)', /\blimit\s+(?:\d|@|\$)/],
  ["PostgreSQL's :: cast", /::/],
  ["PostgreSQL's || concatenation", /\|\|/],
  ['string_agg (SQL Server 2017 and later)', /\bstring_agg\(/],
  ['md5() (T-SQL hashes with HASHBYTES)', /\bmd5\(/],
  ['a checksum of every column (*), which engines that expand it call with past 100 arguments', /checksum\(\*\)/],
];

/**
 * Function calls stay within 100 arguments: the least any T-SQL engine takes (Babelfish, on
 * PostgreSQL's FUNC_MAX_ARGS; SQL Server's CONCAT takes 254).
 */
const MAX_ARGUMENTS = 100;

/** Why a statement is not T-SQL that SQL Server 2014 runs; empty when nothing shows. */
export function tsqlProblems(sql: string): string[] {
  const problems = NOT_TSQL_2014.filter(([, pattern]) => pattern.test(sql)).map(([problem]) => problem);
  for (const match of sql.matchAll(/\b(\w+)\(/g)) {
    const open = match.index + match[1]!.length;
    const count = splitList(sql.slice(open + 1, closing(sql, open))).length;
    if (count > MAX_ARGUMENTS) problems.push(`${match[1]}() with ${count} arguments (at most ${MAX_ARGUMENTS})`);
  }
  return problems;
}
