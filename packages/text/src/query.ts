import type { Language } from './language.js';
import { stem } from './stem.js';
import { stopWords } from './stopwords.js';
import { words } from './tokenize.js';

/** One word of a query, analysed for every language asked. */
export interface QueryWord {
  /** The word as typed, folded. */
  surface: string;
  /** Its stem in each language asked (the folded word itself for `simple`). */
  stems: Partial<Record<Language, string>>;
  /** True when it is a stop word of any language asked. */
  stop: boolean;
}

/** One clause of a query. */
export interface QueryClause {
  /** A word, a phrase (`"a b"`, or words joined by punctuation: `e-mail`), or a prefix (`wor*`). */
  kind: 'word' | 'phrase' | 'prefix';
  /** One word for `word` and `prefix` (a prefix's word is folded, not stemmed), several for `phrase`. */
  words: QueryWord[];
  /** `+word`: the clause must match (only with `syntax`). */
  required: boolean;
  /** `-word`: the clause must not match (only with `syntax`). */
  excluded: boolean;
}

/** How a query is read. */
export interface QueryOptions {
  /** Languages to stem each word in: every language the index holds. */
  languages: readonly Language[];
  /**
   * Reads `+word` (required) and `-word` (excluded) at the start of a word. Quotes (phrases) and
   * a `*` ending a word (prefix) are always read; every other character only separates words.
   */
  syntax?: boolean;
}

function queryWord(surface: string, languages: readonly Language[]): QueryWord {
  const stems: Partial<Record<Language, string>> = {};
  let stop = false;
  for (const language of languages) {
    stems[language] = stem(surface, language);
    if (stopWords(language).has(surface)) stop = true;
  }
  return { surface, stems, stop };
}

const PREFIX_END = /[\p{L}\p{N}\p{M}\p{Co}]\*+$/u;

/**
 * The query side of the chain. A question (`How do I add a footnote?`) becomes one clause per
 * word, each word folded and stemmed in every language asked, stop words marked (not dropped:
 * a query of stop words alone must still find something; callers drop them when other words
 * are left). Text in double quotes is a phrase; a word joined by punctuation (`e-mail`, `v1.2`)
 * is a phrase of its parts, the way documents are tokenised; `word*` is a prefix. With
 * `syntax`, a leading `-` excludes a word or phrase and a leading `+` requires it. An unbalanced
 * quote is ignored. No character is ever an error.
 */
export function analyzeQuery(text: string, options: QueryOptions): QueryClause[] {
  const languages = options.languages.length > 0 ? options.languages : (['simple'] as const);
  const clauses: QueryClause[] = [];
  const balanced = (text.match(/"/g) ?? []).length % 2 === 0;
  const push = (ws: string[], prefix: boolean, sign: string) => {
    if (ws.length === 0) return;
    const required = options.syntax === true && sign === '+';
    const excluded = options.syntax === true && sign === '-';
    if (prefix && ws.length === 1) {
      const surface = ws[0]!;
      clauses.push({
        kind: 'prefix',
        words: [
          { surface, stems: Object.fromEntries(languages.map((l) => [l, surface])), stop: false },
        ],
        required,
        excluded,
      });
      return;
    }
    clauses.push({
      kind: ws.length === 1 ? 'word' : 'phrase',
      words: ws.map((w) => queryWord(w, languages)),
      required,
      excluded,
    });
  };
  const pushToken = (token: string) => {
    let sign = '';
    let body = token;
    while (body.startsWith('-') || body.startsWith('+')) {
      sign = body[0]!;
      body = body.slice(1);
    }
    push(words(body), PREFIX_END.test(body), sign);
  };
  let token = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"' && balanced) {
      const sign = token === '-' || token === '+' ? token : '';
      if (!sign) pushToken(token);
      token = '';
      const close = text.indexOf('"', i + 1);
      const ws = words(text.slice(i + 1, close));
      let next = close + 1;
      const prefix = text[next] === '*';
      while (text[next] === '*') next++;
      // A quoted phrase is never cut into stems of a prefix: `"a b"*` reads as the phrase.
      push(ws, prefix && ws.length === 1, sign);
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
  return clauses;
}
