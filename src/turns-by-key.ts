/**
 * Work that must not overlap for one key (a printer, a branch), run in the order it was asked
 * for; work for different keys runs at once. A key is forgotten once its last turn has ended, so
 * the map holds only keys with work in hand.
 */
export class TurnsByKey {
  readonly #lastTurn = new Map<string, Promise<unknown>>();
  /** Turns asked for and not ended, per key with work in hand. */
  readonly #inHand = new Map<string, number>();

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
    this.#inHand.set(key, this.waiting(key) + 1);
    void ended.then(() => {
      const left = this.waiting(key) - 1;
      if (left > 0) this.#inHand.set(key, left);
      else this.#inHand.delete(key);
      if (this.#lastTurn.get(key) === ended) this.#lastTurn.delete(key);
    });
    return result;
  }

  /** The key's turns asked for and not yet ended, the one running included. */
  waiting(key: string): number {
    return this.#inHand.get(key) ?? 0;
  }

  /** How many keys have work in hand. */
  get busyKeys(): number {
    return this.#lastTurn.size;
  }
}
