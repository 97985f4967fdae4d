/** Timing helpers: medians of many runs, two subjects interleaved so machine noise hits both. */
export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The q-quantile (0.99 for p99) of samples sorted ascending, by nearest rank; 0 when there are none. */
export function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

export async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs `a` and `b` alternately `iterations` times after a warm-up; returns both medians in ms. */
export async function compare(a: () => Promise<unknown>, b: () => Promise<unknown>, iterations: number, warmup = 30) {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < iterations; i++) {
    as.push(await time(a));
    bs.push(await time(b));
  }
  return { a: median(as), b: median(bs) };
}

/**
 * `compare` for any number of subjects: each round runs every one, starting one further along
 * each time, so that none always follows the same other one (a call costs more after some than
 * after others); returns their medians in ms, in the subjects' order.
 */
export async function interleaved<const S extends ReadonlyArray<() => Promise<unknown>>>(
  subjects: S,
  iterations: number,
  warmup = 30,
): Promise<{ [K in keyof S]: number }> {
  for (let i = 0; i < warmup; i++) for (const subject of subjects) await subject();
  const samples = subjects.map((): number[] => []);
  for (let i = 0; i < iterations; i++) {
    for (let k = 0; k < subjects.length; k++) {
      const j = (i + k) % subjects.length;
      samples[j]!.push(await time(subjects[j]!));
    }
  }
  return samples.map(median) as { [K in keyof S]: number };
}
