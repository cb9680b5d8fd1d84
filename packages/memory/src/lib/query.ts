import { MemoryError } from './errors.js';

/** One searchable unit of a user query. */
export interface QueryTerm {
  /** The words of the term; more than one makes a phrase. */
  words: string[];
  /** True for a prefix term (`word*`). */
  prefix: boolean;
}

/** Most terms a query may contain. */
export const MAX_QUERY_TERMS = 32;

// Characters the FTS5 unicode61 tokenizer keeps inside tokens: letters, numbers, private use,
// plus combining marks so that a decomposed accent stays with its letter.
export const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

const ASCII = /^[\x00-\x7f]*$/;

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

/**
 * A word folded the way the index's tokenizer (`unicode61 remove_diacritics 2`) folds it:
 * lower case, accents removed. Used to look terms up in the index vocabulary.
 */
export function foldWord(word: string): string {
  // ASCII has no accents to remove.
  if (ASCII.test(word)) return word.toLowerCase();
  return word
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** FTS5 syntax for already-parsed terms, joined by AND (`all`) or OR (`any`). */
export function termsToFts(terms: readonly QueryTerm[], mode: MatchMode): string {
  return terms.map(termToFts).join(mode === 'all' ? ' AND ' : ' OR ');
}

/**
 * Parses user text into terms for a search, refusing text without words (`EMPTY_QUERY`) and
 * more than {@link MAX_QUERY_TERMS} terms (`QUERY_TOO_LONG`); both errors name `query` as data.
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
  if (terms.length > MAX_QUERY_TERMS) {
    throw new MemoryError(
      'QUERY_TOO_LONG',
      `{param:query} has ${terms.length} terms; at most ${MAX_QUERY_TERMS} are allowed. Keep the most distinctive words.`,
      { param: 'query', details: { terms: terms.length, max_terms: MAX_QUERY_TERMS } },
    );
  }
  return terms;
}

/**
 * Builds an FTS5 MATCH expression from user text: every term quoted, joined by AND (`all`) or
 * OR (`any`). Throws `EMPTY_QUERY` when the text has no letter or digit and `QUERY_TOO_LONG`
 * past {@link MAX_QUERY_TERMS} terms.
 */
export function buildFtsQuery(text: string, mode: MatchMode = 'all'): string {
  return termsToFts(queryTerms(text), mode);
}

/**
 * The terms of an any-term search worth running: terms found in more than half of all chunks
 * are left out when at least one other term occurs, because BM25 gives them an IDF of about
 * zero (they cannot change the order, only make the engine rank nearly every chunk). `df` is a
 * term's document frequency, or -1 when unknown (prefixes and phrases: always kept). Returns
 * undefined when nothing is left out.
 */
export function pruneCommonTerms(
  terms: readonly QueryTerm[],
  df: readonly number[],
  chunks: number,
): QueryTerm[] | undefined {
  if (chunks === 0) return undefined;
  const kept = terms.filter((_, i) => df[i]! <= chunks / 2);
  const occurs = df.some((f) => f !== 0 && f <= chunks / 2);
  if (!occurs || kept.length === terms.length) return undefined;
  return kept;
}
