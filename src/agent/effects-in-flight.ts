/**
 * The Idempotency-Keys of writes that have committed and whose outside effect (a print) is still
 * running in this process. Their record holds what the write returned until the effect ends (a
 * print's `interrupted`): a retry of the key that finds the record meanwhile waits for the effect
 * instead of answering as if the agent had stopped. One agent runs per branch, so this process
 * is the only one that can be running it.
 */
export class EffectsInFlight {
  readonly #running = new Map<string, Promise<void>>();

  /** Keys whose effect, or its recording, is still under way. */
  get size(): number {
    return this.#running.size;
  }

  /** Marks the key's effect as running; the function returned ends it. */
  begin(key: string): () => void {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.#running.set(key, ended);
    return () => {
      if (this.#running.get(key) === ended) this.#running.delete(key);
      end();
    };
  }

  /** True once no effect of the key runs; false when one still does at `deadline` (performance.now()). */
  async settled(key: string, deadline: number): Promise<boolean> {
    const ended = this.#running.get(key);
    if (!ended) return true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), Math.max(0, deadline - performance.now()));
    });
    try {
      return await Promise.race([ended.then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
