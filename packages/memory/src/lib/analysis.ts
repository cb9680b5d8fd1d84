import { basename, extname } from 'node:path';
import {
  declaredLanguage,
  detectLanguage,
  type Language,
  STEMMED_LANGUAGES,
  type StemmedLanguage,
  stem,
  stopWords,
  words,
} from '@lectern/text';
import { MAX_TERM_CHARS } from './rank.js';

/** The separator of a heading path (`Project > Risks`). */
const HEADING_SEPARATOR = ' > ';

/**
 * Characters of a note's opening that language identification reads. A few sentences decide
 * the language of prose as well as a page does, and identification is the costliest step of
 * indexing a note (about four times the rest at 2,000 characters).
 */
export const LANGUAGE_SAMPLE_CHARS = 500;

/** Share of a sample's words that must be stop words of the language detected (prose: 30-50%). */
const MIN_STOP_WORD_SHARE = 0.05;

let stopWordLanguages: Map<string, number[]> | undefined;

/** Every stop word of the stemmed languages, with the languages (their indexes) it is one of. */
function stopWordIndex(): Map<string, number[]> {
  if (stopWordLanguages) return stopWordLanguages;
  const index = new Map<string, number[]>();
  STEMMED_LANGUAGES.forEach((language, l) => {
    for (const w of stopWords(language)) {
      const of = index.get(w);
      if (of) of.push(l);
      else index.set(w, [l]);
    }
  });
  stopWordLanguages = index;
  return index;
}

/**
 * The language a note is indexed in: its front matter's `lang:` / `language:` when it has one
 * (Markdown only), else what `@lectern/text` detects from its text, else `fallback` (the store's
 * `language` option; the memoria preset passes Spanish).
 */
export function noteLanguage(
  lines: readonly string[],
  text: string,
  markdown: boolean,
  fallback: Language,
): Language {
  const declared = markdown ? declaredLanguage(lines) : undefined;
  if (declared !== undefined) return declared;
  const sample = text.slice(0, LANGUAGE_SAMPLE_CHARS);
  // Prose in a language uses its function words. Trigram identification names a language
  // for any text, invented words, code or lists of names included: without enough of the
  // named language's stop words the note's language is undetermined.
  const ws = words(sample);
  const needed = Math.max(1, Math.ceil(ws.length * MIN_STOP_WORD_SHARE));
  const hits = new Array<number>(STEMMED_LANGUAGES.length).fill(0);
  const index = stopWordIndex();
  for (const w of ws) {
    const of = index.get(w);
    if (of !== undefined) for (const l of of) hits[l]!++;
  }
  let enough = false;
  for (const n of hits) if (n >= needed) enough = true;
  // No language has enough of its stop words in the sample: whatever identification names,
  // the note is the fallback, so the trigram identification (the costliest step of indexing
  // such a note) is not run.
  if (!enough) return fallback;
  const detected = detectLanguage(sample, { fallback });
  if (detected === fallback) return detected;
  const at = STEMMED_LANGUAGES.indexOf(detected as StemmedLanguage);
  return at >= 0 && hits[at]! >= needed ? detected : fallback;
}

/**
 * The three fields a chunk is ranked on: the note's title (the first heading of its heading
 * path, or the file name when it has none), the rest of its heading path, and its text.
 */
export function chunkFields(
  path: string,
  headingPath: string,
  text: string,
): { title: string; headings: string; body: string } {
  if (headingPath === '') {
    const name = basename(path, extname(path));
    return { title: name, headings: '', body: text };
  }
  const at = headingPath.indexOf(HEADING_SEPARATOR);
  if (at < 0) return { title: headingPath, headings: '', body: text };
  return {
    title: headingPath.slice(0, at),
    headings: headingPath.slice(at + HEADING_SEPARATOR.length),
    body: text,
  };
}

/** One field analysed for the index. */
export interface AnalysedField {
  /** Every word's stem, in order, stop words included (phrases need their positions). */
  terms: string[];
  /** How many of them are not stop words: the field's length for BM25. */
  length: number;
}

/**
 * A field's words folded and stemmed in `language` (`@lectern/text`): every word is kept, so
 * a phrase matches at the positions it had, and the length counts the words that are not stop
 * words, as the ranking does.
 */
export function analyseField(text: string, language: Language): AnalysedField {
  const stops = stopWords(language);
  const terms: string[] = [];
  let length = 0;
  for (const w of words(text)) {
    // Not a word but data (base64, hashes run together): not indexed.
    if (w.length > MAX_TERM_CHARS) continue;
    if (!stops.has(w)) length++;
    terms.push(stem(w, language));
  }
  return { terms, length };
}

/** A chunk analysed for the index, field by field (title, headings, body). */
export interface AnalysedChunk {
  language: Language;
  title: AnalysedField;
  headings: AnalysedField;
  body: AnalysedField;
}

/** Analyses the three fields of a chunk (see {@link chunkFields}) in the note's language. */
export function analyseChunk(
  path: string,
  headingPath: string,
  text: string,
  language: Language,
): AnalysedChunk {
  const f = chunkFields(path, headingPath, text);
  return {
    language,
    title: analyseField(f.title, language),
    headings: analyseField(f.headings, language),
    body: analyseField(f.body, language),
  };
}
