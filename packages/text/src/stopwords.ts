import { createRequire } from 'node:module';
import { foldWord } from './fold.js';
import { LANGUAGE_INFO, type Language } from './language.js';

let lists: Record<string, readonly string[]> | undefined;
const sets = new Map<Language, ReadonlySet<string>>();
const EMPTY: ReadonlySet<string> = new Set();

/**
 * The stop words of a language, folded ({@link foldWord}): the lists of the `stopword` package
 * (for English, Spanish and the other Snowball languages). `simple` has none.
 */
export function stopWords(language: Language): ReadonlySet<string> {
  if (language === 'simple') return EMPTY;
  let set = sets.get(language);
  if (!set) {
    // Loaded on first use, outside any bundle: the package holds lists for 60 languages.
    lists ??= createRequire(import.meta.url)('stopword') as Record<string, readonly string[]>;
    const list = lists[LANGUAGE_INFO[language].stopword] ?? [];
    set = new Set(list.map(foldWord));
    sets.set(language, set);
  }
  return set;
}

/** True when a folded word is a stop word of the language. */
export function isStopWord(folded: string, language: Language): boolean {
  return stopWords(language).has(folded);
}
