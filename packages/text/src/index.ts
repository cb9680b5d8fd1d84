export { analyze, type Term, termFrequencies, terms } from './analyze.js';
export {
  BM25,
  type Bm25Params,
  bm25f,
  FIELD_WEIGHTS,
  FIELDS,
  type Field,
  idf,
} from './bm25.js';
export { DETECT_SAMPLE_CHARS, type DetectOptions, detectLanguage } from './detect.js';
export { foldWord } from './fold.js';
export {
  declaredLanguage,
  isLanguage,
  LANGUAGE_INFO,
  LANGUAGES,
  type Language,
  languageFromTag,
  STEMMED_LANGUAGES,
  type StemmedLanguage,
} from './language.js';
export { analyzeQuery, type QueryClause, type QueryOptions, type QueryWord } from './query.js';
export { stem } from './stem.js';
export { isStopWord, stopWords } from './stopwords.js';
export { type Token, tokenize, WORD, words } from './tokenize.js';
