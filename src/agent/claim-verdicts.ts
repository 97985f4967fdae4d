/**
 * Held jobs (`hold` in the job message): the gateway sends a write before it has claimed the
 * request's Idempotency-Key, so that its claim and the write overlap. The write runs at once but
 * commits only on the gateway's word that it won the claim. A lost claim, the connection the job
 * came on closing, or the job's budget running out rolls it back: nothing a held job does lasts
 * unless its key was the gateway's to use. A print, which no rollback undoes, records its key
 * while the verdict travels and sends nothing to a printer before it is won (runner.ts).
 */

/** The gateway did not win the job's key (or can no longer say that it did): roll back. */
export class ClaimLost extends Error {}

interface Held {
  won?: boolean;
  waiter?: (won: boolean) => void;
}

export class ClaimVerdicts {
  readonly #held = new Map<string, Held>();

  /** A held job arrived: its verdict may come before the job reaches its commit. */
  expect(jobId: string): void {
    this.#held.set(jobId, {});
  }

  /** The job ended: a verdict that comes later is for nothing and is dropped. */
  forget(jobId: string): void {
    this.#held.delete(jobId);
  }

  /** The gateway's verdict; the first one counts. */
  decide(jobId: string, won: boolean): void {
    const held = this.#held.get(jobId);
    if (!held || held.won !== undefined) return;
    held.won = won;
    held.waiter?.(won);
  }

  /** The connection the held jobs came on is gone: no verdict can reach them any more. */
  abandonAll(): void {
    for (const jobId of this.#held.keys()) this.decide(jobId, false);
  }

  /**
   * Resolves once the claim is won; throws ClaimLost when it is lost, and `late()` when no
   * verdict came by `deadline` (on performance.now()'s clock).
   */
  async won(jobId: string, deadline: number, late: () => Error): Promise<void> {
    const held = this.#held.get(jobId);
    if (!held) throw new ClaimLost();
    const won =
      held.won ??
      (await new Promise<boolean | undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - performance.now()));
        held.waiter = (verdict) => {
          clearTimeout(timer);
          resolve(verdict);
        };
      }));
    if (won === undefined) throw late();
    if (!won) throw new ClaimLost();
  }
}
