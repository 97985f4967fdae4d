/** Runs `check` with the process in `zone`, as a branch server's agent runs: Node reads TZ again whenever it is set. */
export function inZone<T>(zone: string, check: () => T): T {
  const saved = process.env.TZ;
  process.env.TZ = zone;
  try {
    return check();
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
}
