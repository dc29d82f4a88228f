/**
 * Long-poll waiters, by key, woken on every change of that key. In memory on purpose: a waiter
 * is an open request to the object, which ends with the object anyway; the reader then asks again.
 */
export class ChangeWaiters {
  readonly #waiting = new Map<string, Set<() => void>>();

  /** Resolves on the next `wake(key)`, or after `ms`. */
  next(key: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiters = this.#waiting.get(key) ?? new Set<() => void>();
      this.#waiting.set(key, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.#waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** Wakes everyone waiting on `key`. */
  wake(key: string): void {
    for (const done of [...(this.#waiting.get(key) ?? [])]) done();
  }
}
