/**
 * Lookups by key gathered over one turn of the event loop and answered by one query: the
 * requests a busy gateway reads from its sockets in one turn ask together, so the busier it is
 * the fewer queries per request it sends (an idle one waits for nothing but the end of the turn).
 */
export class BatchedLookup<K, V> {
  #waiting = new Map<K, Array<{ resolve: (value: V) => void; reject: (error: unknown) => void }>>();
  #scheduled = false;

  /** `fetch` answers for every key it is given; a key it leaves out is `missing`. */
  constructor(
    private readonly fetch: (keys: K[]) => Promise<Map<K, V>>,
    private readonly missing: V,
  ) {}

  get(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      const waiters = this.#waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.#waiting.set(key, [{ resolve, reject }]);
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => void this.#run());
    });
  }

  async #run(): Promise<void> {
    this.#scheduled = false;
    const batch = this.#waiting;
    this.#waiting = new Map();
    let found: Map<K, V>;
    try {
      found = await this.fetch([...batch.keys()]);
    } catch (error) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(error);
      return;
    }
    for (const [key, waiters] of batch) {
      const value = found.has(key) ? found.get(key)! : this.missing;
      for (const w of waiters) w.resolve(value);
    }
  }
}
