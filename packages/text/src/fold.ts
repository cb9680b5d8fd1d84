const ASCII = /^[\x00-\x7f]*$/;
const MARKS = /\p{M}+/gu;

/**
 * A word as every index and query meets it: lower case, accents removed (canonical
 * decomposition without combining marks, the way SQLite FTS5's `unicode61 remove_diacritics 2`
 * folds), so `Café`, `cafe` and `CAFÉ` are one word.
 */
export function foldWord(word: string): string {
  // ASCII has no accents to remove.
  if (ASCII.test(word)) return word.toLowerCase();
  return word.normalize('NFD').replace(MARKS, '').toLowerCase();
}
