import { MemoryError } from './errors.js';

export { foldWord } from '@lectern/text';

/** One searchable unit of a user query. */
export interface QueryTerm {
  /** The words of the term; more than one makes a phrase. */
  words: string[];
  /** True for a prefix term (`word*`). */
  prefix: boolean;
}

// Characters the FTS5 unicode61 tokenizer keeps inside tokens: letters, numbers, private use,
// plus combining marks so that a decomposed accent stays with its letter.
export const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

const PREFIX_END = /[\p{L}\p{N}\p{M}\p{Co}]\*+$/u;

function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

/**
 * Splits user text into terms without giving any character a query meaning, except two on
 * purpose: text inside double quotes is a phrase, and a `*` right after a word makes it a
 * prefix. Everything else that is not a letter or digit separates words, so `AND(`, `-`, `:`,
 * `^`, `{}` and friends are plain separators, and the words `AND`, `OR`, `NOT`, `NEAR` are plain
 * words. A word joined by punctuation (`e-mail`, `v1.2`) becomes a phrase of its parts, which is
 * how the index stores it. An unbalanced quote is ignored.
 */
export function parseQuery(text: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  const balanced = (text.match(/"/g) ?? []).length % 2 === 0;
  const pushToken = (token: string) => {
    const w = words(token);
    if (w.length === 0) return;
    terms.push({ words: w, prefix: PREFIX_END.test(token) });
  };
  let token = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"' && balanced) {
      pushToken(token);
      token = '';
      const close = text.indexOf('"', i + 1);
      const w = words(text.slice(i + 1, close));
      let next = close + 1;
      const prefix = text[next] === '*';
      while (text[next] === '*') next++;
      if (w.length > 0) terms.push({ words: w, prefix });
      i = next;
      continue;
    }
    if (ch === '"' || /\s/u.test(ch)) {
      pushToken(token);
      token = '';
    } else {
      token += ch;
    }
    i++;
  }
  pushToken(token);
  return terms;
}

function quote(word: string): string {
  return `"${word.replace(/"/g, '""')}"`;
}

/** FTS5 syntax for one term: `"word"`, `"word"*` or a phrase `"a b"` (prefix on the last). */
export function termToFts(term: QueryTerm): string {
  const body = quote(term.words.join(' '));
  return term.prefix ? `${body}*` : body;
}

/** How the terms of a query are combined. */
export type MatchMode = 'all' | 'any';

/** FTS5 syntax for already-parsed terms, joined by AND (`all`) or OR (`any`). */
export function termsToFts(terms: readonly QueryTerm[], mode: MatchMode): string {
  return terms.map(termToFts).join(mode === 'all' ? ' AND ' : ' OR ');
}

/**
 * Parses user text into terms for a search, refusing text without words (`EMPTY_QUERY`, naming
 * `query` as data). The number of words is never a reason to refuse: a question is reduced to
 * its informative words when it is ranked.
 */
export function queryTerms(text: string): QueryTerm[] {
  const terms = parseQuery(text);
  if (terms.length === 0) {
    throw new MemoryError(
      'EMPTY_QUERY',
      `{param:query} ${JSON.stringify(text)} contains no letters or digits to search for; give at least one word.`,
      { param: 'query' },
    );
  }
  return terms;
}

/**
 * Builds an FTS5 MATCH expression from user text: every term quoted, joined by AND (`all`) or
 * OR (`any`). Throws `EMPTY_QUERY` when the text has no letter or digit.
 */
export function buildFtsQuery(text: string, mode: MatchMode = 'all'): string {
  return termsToFts(queryTerms(text), mode);
}
