import { type Language, stem, tokenize } from '@lectern/text';
import type { QueryTerm } from './rank.js';

/** Characters of a search result's snippet, about: enough to recognise the passage. */
export const SNIPPET_CHARS = 80;

/** Characters of a body searched for the first query word (a long section's start). */
const SCAN_CHARS = 64 * 1024;

/**
 * A snippet of about `width` characters of a unit's body (whitespace collapsed), around the
 * first word that matches a query term in the document's language, cut at word boundaries and
 * marked with `…` where text was left out. The heading when the body is empty.
 */
export function snippetOf(
  body: string,
  terms: readonly QueryTerm[],
  language: Language,
  heading: string,
  width = SNIPPET_CHARS,
): string {
  const flat = body.slice(0, SCAN_CHARS).replace(/\s+/g, ' ').trim();
  if (flat.length === 0) return heading;
  const stems = new Set<string>();
  const prefixes: string[] = [];
  for (const t of terms) {
    const key = t.stems[language];
    if (key === undefined) continue;
    if (t.kind === 'prefix') prefixes.push(key);
    else stems.add(key);
  }
  let at = 0;
  for (const tok of tokenize(flat)) {
    if (stems.has(stem(tok.word, language)) || prefixes.some((p) => tok.word.startsWith(p))) {
      at = tok.start;
      break;
    }
  }
  let start = Math.max(0, at - Math.floor(width / 4));
  let end = Math.min(flat.length, start + width);
  start = Math.max(0, end - width);
  // Whole words: move the start past a cut word, the end back before one.
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space !== -1 && space < at) start = space + 1;
  }
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > Math.max(start, at)) end = space;
  }
  // never split a surrogate pair
  if (start > 0 && /[\udc00-\udfff]/.test(flat[start]!)) start--;
  if (end < flat.length && /[\ud800-\udbff]/.test(flat[end - 1]!)) end--;
  const whole = end >= flat.length && body.length <= SCAN_CHARS;
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${whole ? '' : '…'}`;
}
