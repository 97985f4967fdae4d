/** ESC t n for CP858 on the generic Epson-compatible table (Epson TM series and most clones). */
const GENERIC_CP858_PAGE = 19;

// Firmwares that number their code-page table differently (from the vendors' command manuals).
const CP858_PAGE_BY_MODEL: ReadonlyMap<string, number> = new Map([
  ['mp-4200 th', 5],
  ['mp-2800 th', 5],
  ['i9', 5],
  ['i7', 5],
]);

export function cp858PageFor(model?: string): number {
  return CP858_PAGE_BY_MODEL.get(model?.trim().toLowerCase() ?? '') ?? GENERIC_CP858_PAGE;
}
