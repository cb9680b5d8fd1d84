import { type Language, stem, words } from '@lectern/text';
import { quoteLexeme } from './text.js';

/**
 * Rewrites a raw `tsquery` expression so it runs against the index, which holds each word's
 * stem in its note's language (weights: A title, B heading path, D body): every operand's
 * words become their stems, quoted — `('a' | 'b')` when the index's languages stem a word
 * differently, `'a' <-> 'b'` for an operand of several words — and `word:*` matches index
 * terms starting with the folded word. Operators (`&`, `|`, `!`, `<->`, `<N>`), parentheses
 * and weight labels stay as written, so what PostgreSQL refuses stays refused. Also returns
 * the operands' words (folded), which rank the matches.
 */
export function rawToTsquery(
  text: string,
  languages: readonly Language[],
): { query: string; words: string[] } {
  const out: string[] = [];
  const found: string[] = [];
  const stemsOf = (w: string) => [...new Set(languages.map((l) => stem(w, l)))];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    let body: string | undefined;
    if (ch === "'") {
      // A quoted operand: '' and \' escape a quote.
      let j = i + 1;
      let value = '';
      let closed = false;
      while (j < text.length) {
        const c = text[j]!;
        if (c === '\\' && j + 1 < text.length) {
          value += text[j + 1];
          j += 2;
          continue;
        }
        if (c === "'") {
          if (text[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          closed = true;
          j++;
          break;
        }
        value += c;
        j++;
      }
      if (!closed) {
        // Left for PostgreSQL to refuse.
        out.push(text.slice(i));
        break;
      }
      body = value;
      i = j;
    } else if (/[\s&|!()<>:*0-9-]/.test(ch) && !/[\p{L}\p{N}]/u.test(ch)) {
      out.push(ch);
      i++;
      continue;
    } else if (/[0-9]/.test(ch) && out.at(-1) === '<') {
      // The distance of `<N>`.
      let j = i;
      while (j < text.length && /[0-9]/.test(text[j]!)) j++;
      out.push(text.slice(i, j));
      i = j;
      continue;
    } else {
      let j = i;
      while (j < text.length && !/[\s&|!()<>:']/.test(text[j]!)) j++;
      body = text.slice(i, j);
      i = j;
    }
    // A label follows directly: `:*`, `:AB`, `:*A`.
    const label = /^:[*A-Da-d]*/.exec(text.slice(i))?.[0] ?? '';
    i += label.length;
    const ws = words(body);
    found.push(...ws);
    const prefix = label.includes('*');
    const weights = label.replace(/[:*]/g, '');
    const suffix = prefix || weights ? `:${prefix ? '*' : ''}${weights}` : '';
    if (ws.length === 0) {
      out.push(`''${suffix}`);
    } else if (ws.length === 1 && !prefix) {
      const stems = stemsOf(ws[0]!);
      out.push(
        stems.length === 1
          ? `${quoteLexeme(stems[0]!)}${suffix}`
          : `(${stems.map((s) => `${quoteLexeme(s)}${suffix}`).join(' | ')})`,
      );
    } else if (ws.length === 1) {
      out.push(`${quoteLexeme(ws[0]!)}${suffix}`);
    } else {
      const last = ws.length - 1;
      const parts = ws.map((w, k) =>
        k === last && prefix
          ? `${quoteLexeme(w)}${suffix}`
          : `${quoteLexeme(stemsOf(w)[0]!)}${weights ? `:${weights}` : ''}`,
      );
      out.push(`(${parts.join(' <-> ')})`);
    }
  }
  return { query: out.join(''), words: found };
}
