import type { Language } from './language.js';
import { stem } from './stem.js';
import { stopWords } from './stopwords.js';
import { tokenize, words } from './tokenize.js';

/** One indexed term of a text: a word's stem, where the word was. */
export interface Term {
  /** The stem of the folded word. */
  term: string;
  /** The word's ordinal among all the text's words, stop words included (they leave gaps). */
  position: number;
  /** UTF-16 offset of the word in the text. */
  start: number;
  /** UTF-16 offset just past the word. */
  end: number;
}

/**
 * The document side of the chain, as a Lucene analyzer: words ({@link tokenize}), folded, stop
 * words of the language dropped, the rest stemmed. Positions count every word, so a phrase
 * query across a dropped stop word still lines up when the query is analysed the same way.
 */
export function analyze(text: string, language: Language): Term[] {
  const stops = stopWords(language);
  const out: Term[] = [];
  for (const t of tokenize(text)) {
    if (stops.has(t.word)) continue;
    out.push({ term: stem(t.word, language), position: t.position, start: t.start, end: t.end });
  }
  return out;
}

/** The stems of a text in order, stop words dropped: {@link analyze} without offsets. */
export function terms(text: string, language: Language): string[] {
  const stops = stopWords(language);
  const out: string[] = [];
  for (const w of words(text)) if (!stops.has(w)) out.push(stem(w, language));
  return out;
}

/** How often each stem occurs in a text ({@link terms} counted). */
export function termFrequencies(text: string, language: Language): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of terms(text, language)) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}
