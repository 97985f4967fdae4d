/** Greedy word wrap; words longer than a line are split. Returns at least one (possibly empty) line. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ').filter((w) => w.length > 0)) {
    let rest = word;
    if (current.length > 0 && current.length + 1 + rest.length <= width) {
      current += ` ${rest}`;
      continue;
    }
    if (current.length > 0) lines.push(current);
    while (rest.length > width) {
      lines.push(rest.slice(0, width));
      rest = rest.slice(width);
    }
    current = rest;
  }
  if (current.length > 0 || lines.length === 0) lines.push(current);
  return lines;
}

/** Wraps `text` after `prefix`, indenting continuation lines to the prefix's width. */
export function wrapWithPrefix(prefix: string, text: string, width: number): string[] {
  const indent = ' '.repeat(prefix.length);
  return wrapText(text, Math.max(1, width - prefix.length)).map((line, i) => (i === 0 ? prefix : indent) + line);
}
