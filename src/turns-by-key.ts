/**
 * Work that must not overlap for one key (a printer, a branch), run in the order it was asked
 * for; work for different keys runs at once. A key is forgotten once its last turn has ended, so
 * the map holds only keys with work in hand.
 */
export class TurnsByKey {
  readonly #lastTurn = new Map<string, Promise<unknown>>();

  /**
   * Runs `work` once the key's previous turn has ended, and answers with what it gives. The turn
   * ends when `heldUntil(result)` settles, by default with the work: a caller can have its answer
   * before the key is free (a printer answers a job before it closes its connection). A turn that
   * fails still ends, and the next one runs.
   */
  run<T>(key: string, work: () => Promise<T>, heldUntil: (result: T) => Promise<unknown> = () => Promise.resolve()): Promise<T> {
    const result = (this.#lastTurn.get(key) ?? Promise.resolve()).then(work);
    const ended = result.then(heldUntil).catch(() => undefined);
    this.#lastTurn.set(key, ended);
    void ended.then(() => {
      if (this.#lastTurn.get(key) === ended) this.#lastTurn.delete(key);
    });
    return result;
  }

  /** How many keys have work in hand. */
  get busyKeys(): number {
    return this.#lastTurn.size;
  }
}
