/**
 * Languages of notes, from `@lectern/text` (the one analysis chain memory uses): the Snowball
 * languages by ISO 639-1 code, stemmed, with their stop words, and `simple` (words folded
 * only). A note's language comes from its front matter (`lang:` / `language:`), else from
 * detection (`lib/analysis.ts`).
 */
export {
  declaredLanguage,
  LANGUAGES,
  type Language,
  languageFromTag as languageOf,
  STEMMED_LANGUAGES,
} from '@lectern/text';
