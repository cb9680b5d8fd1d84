import { foldWord, type Language, stem } from '@lectern/text';
import type { QueryTerm } from './query.js';

/** The stem of a word as typed: folded, then stemmed (`@lectern/text`). */
const stemWord = (word: string, language: Language) => stem(foldWord(word), language);

/** What to mark in a snippet: folded words, folded prefixes and phrases (sequences of words). */
export interface Highlight {
  /** Single words, folded (lower case, no accents), including the word forms a search matched. */
  words: ReadonlySet<string>;
  /** Prefixes of single-word prefix terms, folded. */
  prefixes: readonly string[];
  /** Multi-word terms: folded words in order; `prefix` applies to the last one. */
  phrases: ReadonlyArray<{ words: readonly string[]; prefix: boolean }>;
  /** Stems whose every word is marked, per language (word forms matched by stem). */
  stems?: ReadonlyArray<{ language: Language; stems: ReadonlySet<string> }>;
}

/** Stems of folded words (language, NUL, word), per highlight: see `makeSnippet`. */
const stemMemo = new WeakMap<Highlight, Map<string, string>>();

/** Tokens of a snippet window. */
export const SNIPPET_TOKENS = 24;

const OPEN = '«';
const CLOSE = '»';
const ELLIPSIS = '…';

// The same characters the index's tokenizer keeps inside a token.
const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/**
 * Builds the highlight of a query's terms plus extra word forms (already folded), and words
 * whose other forms matched by stem (`formsOf`: any word sharing their stem is marked).
 */
export function highlightOf(
  terms: readonly QueryTerm[],
  forms: Iterable<string> = [],
  formsOf: ReadonlyArray<{ language: Language; words: readonly string[] }> = [],
): Highlight {
  const words = new Set<string>(forms);
  const prefixes: string[] = [];
  const phrases: Array<{ words: string[]; prefix: boolean }> = [];
  for (const t of terms) {
    const folded = t.words.map(foldWord);
    if (folded.length > 1) phrases.push({ words: folded, prefix: t.prefix });
    else if (t.prefix) prefixes.push(folded[0]!);
    else words.add(folded[0]!);
  }
  const stems = formsOf.map((f) => ({
    language: f.language,
    stems: new Set(f.words.map((w) => stemWord(w, f.language))),
  }));
  return stems.length > 0 ? { words, prefixes, phrases, stems } : { words, prefixes, phrases };
}

/**
 * A short excerpt of `text` around the query's matches: a window of {@link SNIPPET_TOKENS}
 * tokens holding the most distinct matched terms, with each match between « and » and `…`
 * where the window cuts the text. With no match in the text, its first tokens.
 */
export function makeSnippet(text: string, highlight: Highlight, size = SNIPPET_TOKENS): string {
  const starts: number[] = [];
  const ends: number[] = [];
  const folded: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    starts.push(m.index);
    ends.push(m.index + m[0].length);
    folded.push(foldWord(m[0]));
  }
  const n = folded.length;
  if (n === 0) return '';
  // The words' stems, remembered for every snippet of this highlight (one search's citations
  // repeat most of their words; Snowball per word was ~1.5 ms of a Cranfield search).
  let memo = stemMemo.get(highlight);
  if (!memo && highlight.stems) {
    memo = new Map();
    stemMemo.set(highlight, memo);
  }
  const stemmed = (w: string, language: Language): string => {
    const key = `${language}\u0000${w}`;
    let out = memo!.get(key);
    if (out === undefined) {
      out = stemWord(w, language);
      memo!.set(key, out);
    }
    return out;
  };
  // Each match: a span of tokens [from, to] and the term it belongs to.
  const spanEnd = new Int32Array(n).fill(-1);
  const termOf = new Int32Array(n).fill(-1);
  const mark = (from: number, to: number, term: number) => {
    if (spanEnd[from]! < to) {
      spanEnd[from] = to;
      termOf[from] = term;
    }
  };
  const wordTerm = new Map<string, number>();
  let nextTerm = 0;
  for (let i = 0; i < n; i++) {
    const w = folded[i]!;
    if (highlight.words.has(w)) {
      let id = wordTerm.get(w);
      if (id === undefined) {
        id = nextTerm++;
        wordTerm.set(w, id);
      }
      mark(i, i, id);
      continue;
    }
    const stem = highlight.stems?.find((x) => x.stems.has(stemmed(w, x.language)));
    if (stem) {
      const form = `${stem.language}\u0000${stemmed(w, stem.language)}`;
      let id = wordTerm.get(form);
      if (id === undefined) {
        id = nextTerm++;
        wordTerm.set(form, id);
      }
      mark(i, i, id);
      continue;
    }
    for (let p = 0; p < highlight.prefixes.length; p++) {
      if (w.startsWith(highlight.prefixes[p]!)) {
        mark(i, i, 10_000 + p);
        break;
      }
    }
  }
  highlight.phrases.forEach((phrase, p) => {
    const len = phrase.words.length;
    for (let i = 0; i + len <= n; i++) {
      let ok = true;
      for (let k = 0; k < len && ok; k++) {
        const want = phrase.words[k]!;
        const got = folded[i + k]!;
        ok = k === len - 1 && phrase.prefix ? got.startsWith(want) : got === want;
      }
      if (ok) mark(i, i + len - 1, 20_000 + p);
    }
  });

  // The window with the most distinct terms (then the most matches), earliest first.
  let best = 0;
  let bestScore = -1;
  for (let s = 0; s < n; s++) {
    if (termOf[s] === -1) continue;
    const seen = new Set<number>();
    let hits = 0;
    for (let i = s; i < Math.min(n, s + size); i++) {
      if (termOf[i] !== -1 && spanEnd[i]! < s + size) {
        seen.add(termOf[i]!);
        hits++;
      }
    }
    const score = seen.size * 1000 + hits;
    if (score > bestScore) {
      bestScore = score;
      best = s;
    }
  }
  // Centre the matches: move the window back by half of its unused end.
  if (bestScore >= 0) {
    let last = best;
    for (let i = best; i < Math.min(n, best + size); i++) {
      if (termOf[i] !== -1 && spanEnd[i]! < best + size) last = Math.max(last, spanEnd[i]!);
    }
    const slack = best + size - 1 - last;
    best = Math.max(0, Math.min(best - Math.floor(slack / 2), n - size));
  }
  const first = best;
  const lastToken = Math.min(n, first + size) - 1;

  let out = first === 0 ? text.slice(0, starts[0]) : ELLIPSIS;
  let i = first;
  while (i <= lastToken) {
    const end = spanEnd[i]!;
    if (end !== -1 && end <= lastToken) {
      out += `${OPEN}${text.slice(starts[i], ends[end])}${CLOSE}`;
      i = end;
    } else {
      out += text.slice(starts[i], ends[i]);
    }
    if (i < lastToken) out += text.slice(ends[i], starts[i + 1]);
    i++;
  }
  out += lastToken === n - 1 ? text.slice(ends[lastToken]) : ELLIPSIS;
  return out;
}
