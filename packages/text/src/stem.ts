import { createRequire } from 'node:module';
import { LANGUAGE_INFO, type Language, type StemmedLanguage } from './language.js';

interface Stemmer {
  stem(word: string): string;
}

/** Most stems remembered per language before the memo starts over. */
const MEMO_LIMIT = 200_000;

let factory: { newStemmer(locale: string): Stemmer } | undefined;
const stemmers = new Map<StemmedLanguage, { stemmer: Stemmer; memo: Map<string, string> }>();

function stemmerFor(language: StemmedLanguage) {
  let entry = stemmers.get(language);
  if (!entry) {
    // Loaded on first use: the module holds every Snowball algorithm and takes a while to parse.
    factory ??= createRequire(import.meta.url)('snowball-stemmers') as {
      newStemmer(locale: string): Stemmer;
    };
    entry = { stemmer: factory.newStemmer(LANGUAGE_INFO[language].snowball), memo: new Map() };
    stemmers.set(language, entry);
  }
  return entry;
}

/**
 * The Snowball stem of a folded word ({@link foldWord}) in a language; `simple` returns the
 * word. The word must already be folded: the index's vocabulary is folded, and a query meets it
 * on the same ground whether or not accents were typed.
 */
export function stem(folded: string, language: Language): string {
  if (language === 'simple') return folded;
  const { stemmer, memo } = stemmerFor(language);
  let out = memo.get(folded);
  if (out === undefined) {
    out = stemmer.stem(folded);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(folded, out);
  }
  return out;
}
