import { type Language, stem, words } from '@lectern/text';

/** FTS5 keywords, kept as they are (they are operators only in upper case). */
const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'NEAR']);

/** Characters of an FTS5 bareword: letters, digits, `_`, and anything outside ASCII. */
const BAREWORD = /[\p{L}\p{N}\p{M}\p{Co}_\u0080-\u{10ffff}\u001a]/u;

function quote(terms: readonly string[]): string {
  return `"${terms.join(' ').replace(/"/g, '""')}"`;
}

/**
 * Rewrites a raw FTS5 expression so it runs against the index, which holds each word's stem
 * in its note's language: every word (bareword or inside a string) becomes its stem, as a
 * quoted string; a word whose stem differs between the index's languages becomes
 * `("a" OR "b")` where FTS5 allows it (not inside `NEAR(…)` or a phrase, where the first
 * language's stem is used); `word*` matches index terms starting with the folded word.
 * Operators, parentheses, column filters (`heading_path:`, `body:`, `title:`, `{…}`), `^`,
 * `+` and `NEAR`'s distance stay as written, so what FTS5 refuses stays refused. Also returns
 * the expression's words (folded), which rank its matches.
 */
export function rawToFts(
  text: string,
  languages: readonly Language[],
): { expression: string; words: string[] } {
  const out: string[] = [];
  const found: string[] = [];
  let depthNear = 0;
  let nearOpens = false;
  const parens: boolean[] = [];
  const stemsOf = (w: string) => [...new Set(languages.map((l) => stem(w, l)))];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') {
      // A string: "" escapes a quote; an unclosed one is passed on for FTS5 to refuse.
      let j = i + 1;
      let body = '';
      for (;;) {
        const k = text.indexOf('"', j);
        if (k < 0) {
          out.push(text.slice(i));
          i = text.length;
          body = '';
          break;
        }
        if (text[k + 1] === '"') {
          body += `${text.slice(j, k)}"`;
          j = k + 2;
          continue;
        }
        body += text.slice(j, k);
        i = k + 1;
        const ws = words(body);
        found.push(...ws);
        const prefix = text[i] === '*';
        if (prefix && ws.length > 0) {
          const last = ws.length - 1;
          out.push(quote([...ws.slice(0, last).map((w) => stemsOf(w)[0]!), ws[last]!]));
        } else {
          out.push(ws.length === 0 ? '""' : quote(ws.map((w) => stemsOf(w)[0]!)));
        }
        break;
      }
      continue;
    }
    const cp = text.codePointAt(i)!;
    const c = String.fromCodePoint(cp);
    if (BAREWORD.test(c)) {
      let j = i;
      while (j < text.length) {
        const d = String.fromCodePoint(text.codePointAt(j)!);
        if (!BAREWORD.test(d)) break;
        j += d.length;
      }
      const word = text.slice(i, j);
      // A column name: followed by ':' (spaces allowed).
      const rest = text.slice(j);
      if (KEYWORDS.has(word) || /^\s*:/.test(rest) || (depthNear > 0 && /^\d+$/.test(word))) {
        if (word === 'NEAR' && /^\s*\(/.test(rest)) nearOpens = true;
        out.push(word);
        i = j;
        continue;
      }
      const ws = words(word);
      found.push(...ws);
      if (rest.startsWith('*')) {
        out.push(quote(ws));
      } else if (ws.length === 1 && depthNear === 0) {
        const stems = stemsOf(ws[0]!);
        out.push(
          stems.length === 1 ? quote(stems) : `(${stems.map((s) => quote([s])).join(' OR ')})`,
        );
      } else {
        out.push(quote(ws.map((w) => stemsOf(w)[0]!)));
      }
      i = j;
      continue;
    }
    if (ch === '(') {
      parens.push(nearOpens);
      if (nearOpens) depthNear++;
      nearOpens = false;
    }
    if (ch === ')' && parens.pop()) depthNear--;
    out.push(ch);
    i += c.length;
  }
  return { expression: out.join(''), words: found };
}
