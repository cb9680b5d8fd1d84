/**
 * Maps an async sequence through `fn` with up to `width` calls in flight, yielding results in
 * the original order. `fn` must not reject (return failures as values): results still in
 * flight when the consumer stops are simply dropped.
 */
export async function* readAhead<T, R>(
  source: AsyncIterable<T>,
  fn: (item: T) => Promise<R>,
  width: number,
): AsyncGenerator<[T, R]> {
  const queue: Array<[T, Promise<R>]> = [];
  for await (const item of source) {
    queue.push([item, fn(item)]);
    if (queue.length >= width) {
      const [t, p] = queue.shift()!;
      yield [t, await p];
    }
  }
  while (queue.length > 0) {
    const [t, p] = queue.shift()!;
    yield [t, await p];
  }
}
