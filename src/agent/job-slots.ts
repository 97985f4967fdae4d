/** A number of slots that jobs take in turn: at most `limit` at once, the others wait in order. */
export class JobSlots {
  #inUse = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Slots taken and jobs waiting for one. */
  get busy(): number {
    return this.#inUse + this.#waiting.length;
  }

  get inUse(): number {
    return this.#inUse;
  }

  async acquire(): Promise<void> {
    if (this.#inUse < this.limit) {
      this.#inUse++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#inUse--;
  }
}
