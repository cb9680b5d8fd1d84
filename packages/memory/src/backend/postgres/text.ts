import type { QueryTerm } from '../../lib/query.js';
import { WORD } from '../../lib/query.js';

/**
 * Text as PostgreSQL indexes it: the words the SQLite store's tokenizer would see (letters,
 * digits and marks; everything else separates), in lower case and composed form, one space
 * apart. PostgreSQL's parser then finds exactly these words, and its configurations fold
 * accents (`unaccent`) and stem them; case is folded here, so it never depends on the
 * database's locale.
 */
export function indexWords(text: string): string {
  return (text.normalize('NFC').toLowerCase().match(WORD) ?? []).join(' ');
}

/** One query word as a quoted `tsquery` operand. */
function operand(word: string): string {
  const w = word.normalize('NFC').toLowerCase();
  return `'${w.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * `tsquery` text of one term: `'word'`, `'word':*`, or a phrase `'a' <-> 'b'` (prefix on the
 * last word). Built from parsed words only, each quoted: no user text reaches the query
 * parser unquoted, so no query can be a syntax error.
 */
export function termQuery(term: QueryTerm): string {
  const words = term.words.map(operand);
  const last = words.length - 1;
  if (term.prefix) words[last] = `${words[last]}:*`;
  return words.join(' <-> ');
}

/** `tsquery` text of terms joined by `&` (all) or `|` (any). */
export function termsQuery(terms: readonly QueryTerm[], mode: 'all' | 'any'): string {
  const parts = terms.map((t) =>
    terms.length > 1 && t.words.length > 1 ? `(${termQuery(t)})` : termQuery(t),
  );
  return parts.join(mode === 'all' ? ' & ' : ' | ');
}

/** True for a term whose other word forms are searched: one word, not a prefix. */
export function hasForms(term: QueryTerm): boolean {
  return term.words.length === 1 && !term.prefix;
}
