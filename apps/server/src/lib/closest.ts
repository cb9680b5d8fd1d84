import { suggest } from '@lectern/core';

/**
 * The known word closest to a mistyped one (`srve` → `serve`, `limts` → `limits`), or undefined
 * when none is near enough to be a typo (at most a third of the word's letters off, 1 to 3).
 */
export function closest(word: string, known: Iterable<string>): string | undefined {
  const maxDistance = Math.max(1, Math.min(3, Math.floor(word.length / 3) + 1));
  return suggest(word, known, { max: 1, maxDistance })[0];
}
