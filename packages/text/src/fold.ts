const ASCII = /^[\x00-\x7f]*$/;
const MARKS = /\p{M}+/gu;

/** Most folded non-ASCII words remembered before the memo starts over. */
const MEMO_LIMIT = 100_000;
/**
 * Folded forms of non-ASCII words: a text repeats its words, and decomposing, stripping and
 * lower-casing one costs several times a look-up.
 */
const memo = new Map<string, string>();

/**
 * A word as every index and query meets it: lower case, accents removed (canonical
 * decomposition without combining marks, the way SQLite FTS5's `unicode61 remove_diacritics 2`
 * folds), so `Café`, `cafe` and `CAFÉ` are one word.
 */
export function foldWord(word: string): string {
  // ASCII has no accents to remove.
  if (ASCII.test(word)) return word.toLowerCase();
  let out = memo.get(word);
  if (out === undefined) {
    out = word.normalize('NFD').replace(MARKS, '').toLowerCase();
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(word, out);
  }
  return out;
}
