/**
 * A promise-based lock: `run` calls execute one at a time, in call order. A call that fails
 * does not block the ones after it.
 */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` after every earlier call has settled; resolves or rejects with its result. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
