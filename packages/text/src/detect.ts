import { franc } from 'franc';
import {
  LANGUAGE_INFO,
  type Language,
  STEMMED_LANGUAGES,
  type StemmedLanguage,
} from './language.js';
import { stopWords } from './stopwords.js';
import { words } from './tokenize.js';

/** How much of a text identification reads: its opening, where prose usually starts. */
export const DETECT_SAMPLE_CHARS = 2000;

/** Fewer letters than this and a text is too short to identify. */
const MIN_LETTERS = 24;

/**
 * Fewer letters than this and trigram profiles are not asked: on a short line (`This is not a
 * drill, notably.`) they answer a language the text is not in.
 */
const FRANC_MIN_LETTERS = 48;

/** A stop-word vote is decisive with at least this many hits... */
const VOTE_MIN_HITS = 4;
/** ...and at least this many times the runner-up's. */
const VOTE_MARGIN = 2;

const FRANC_ONLY = STEMMED_LANGUAGES.flatMap((l) => [
  LANGUAGE_INFO[l].iso3,
  ...(LANGUAGE_INFO[l].francAlso ?? []),
]);
const FROM_ISO3 = new Map<string, StemmedLanguage>(
  STEMMED_LANGUAGES.flatMap((l) =>
    [LANGUAGE_INFO[l].iso3, ...(LANGUAGE_INFO[l].francAlso ?? [])].map((c) => [c, l] as const),
  ),
);

/** Options of {@link detectLanguage}. */
export interface DetectOptions {
  /** What a text too short or too unclear to identify is taken to be (default `simple`). */
  fallback?: Language;
  /** Languages to choose from (default: every stemmed language). */
  only?: readonly StemmedLanguage[];
}

/**
 * The language of a text (prose in Markdown, say), from its first
 * {@link DETECT_SAMPLE_CHARS} characters. A stop-word vote decides when one language's stop
 * words clearly outnumber every other's (most prose, at the cost of a few set look-ups);
 * otherwise `franc` (trigram profiles) identifies the sample among the stemmed languages. A
 * text with too few letters, or that neither recognises, is the fallback.
 */
export function detectLanguage(text: string, options: DetectOptions = {}): Language {
  const fallback = options.fallback ?? 'simple';
  const only = options.only ?? STEMMED_LANGUAGES;
  const sample = text.length > DETECT_SAMPLE_CHARS ? text.slice(0, DETECT_SAMPLE_CHARS) : text;
  const ws = words(sample);
  let letters = 0;
  for (const w of ws) letters += w.length;
  if (letters < MIN_LETTERS) return fallback;

  let best: StemmedLanguage | undefined;
  let bestHits = 0;
  let secondHits = 0;
  // Distinct words vote: one frequent word shared by two lists (the stopword package's Finnish
  // list holds `the` and `of`) must not outvote a language whose many function words are there.
  const distinct = [...new Set(ws)];
  for (const language of only) {
    const stops = stopWords(language);
    let hits = 0;
    for (const w of distinct) if (stops.has(w)) hits++;
    if (hits > bestHits) {
      secondHits = bestHits;
      bestHits = hits;
      best = language;
    } else if (hits > secondHits) {
      secondHits = hits;
    }
  }
  if (best && bestHits >= VOTE_MIN_HITS && bestHits >= VOTE_MARGIN * secondHits) return best;

  if (letters < FRANC_MIN_LETTERS) return fallback;
  const allowed =
    only === STEMMED_LANGUAGES
      ? FRANC_ONLY
      : only.flatMap((l) => [LANGUAGE_INFO[l].iso3, ...(LANGUAGE_INFO[l].francAlso ?? [])]);
  const code = franc(sample, { only: allowed, minLength: FRANC_MIN_LETTERS });
  return FROM_ISO3.get(code) ?? fallback;
}
