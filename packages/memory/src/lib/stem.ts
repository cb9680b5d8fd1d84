import { createRequire } from 'node:module';
import type { Stemmer } from 'snowball-stemmers';
import type { Language } from './language.js';
import { foldWord } from './query.js';

const SNOWBALL_NAMES: Readonly<Record<Exclude<Language, 'simple'>, string>> = {
  en: 'english',
  es: 'spanish',
};

/** Most stems remembered per language before the memo starts over. */
const MEMO_LIMIT = 200_000;

let factory: { newStemmer(locale: string): Stemmer } | undefined;
const stemmers = new Map<Language, { stemmer: Stemmer; memo: Map<string, string> }>();

function stemmerFor(language: Exclude<Language, 'simple'>) {
  let entry = stemmers.get(language);
  if (!entry) {
    // Loaded on first use: the module holds every Snowball algorithm and takes a while to parse.
    factory ??= createRequire(import.meta.url)('snowball-stemmers') as {
      newStemmer(locale: string): Stemmer;
    };
    entry = { stemmer: factory.newStemmer(SNOWBALL_NAMES[language]), memo: new Map() };
    stemmers.set(language, entry);
  }
  return entry;
}

/**
 * The Snowball stem of a word in a language. The word is folded first, the way the index folds
 * words (lower case, accents removed), so a stem never depends on whether accents were typed:
 * the index's own vocabulary is folded, and a query must meet it on the same ground. `simple`
 * returns the folded word.
 */
export function stemWord(word: string, language: Language): string {
  const folded = foldWord(word);
  if (language === 'simple') return folded;
  const { stemmer, memo } = stemmerFor(language);
  let stem = memo.get(folded);
  if (stem === undefined) {
    stem = stemmer.stem(folded);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(folded, stem);
  }
  return stem;
}
