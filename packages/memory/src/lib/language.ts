/**
 * Languages whose word forms the memory index knows: `en` and `es` are stemmed with the
 * Snowball algorithms (so "notes" finds "note" and "pruebas" finds "prueba"); `simple` matches
 * words only as written (case and accents still ignored).
 */
export type Language = 'en' | 'es' | 'simple';

/** Every {@link Language}, in a stable order. */
export const LANGUAGES: readonly Language[] = ['en', 'es', 'simple'];

/** Languages that have a stemmer. */
export const STEMMED_LANGUAGES: readonly Exclude<Language, 'simple'>[] = ['en', 'es'];

const ALIASES: Readonly<Record<string, Language>> = {
  en: 'en',
  eng: 'en',
  english: 'en',
  ingles: 'en',
  es: 'es',
  spa: 'es',
  spanish: 'es',
  espanol: 'es',
  castellano: 'es',
};

/**
 * Maps a language tag or name (`en`, `en-GB`, `English`, `es_MX`, `español`) to a
 * {@link Language}; anything else is `simple`.
 */
export function languageOf(tag: string): Language {
  const folded = tag
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .trim()
    .toLowerCase();
  const base = folded.split(/[-_]/)[0] ?? '';
  return ALIASES[folded] ?? ALIASES[base] ?? 'simple';
}

// `lang: es`, `language: "en-US"`, `lang: 'es' # comment`
const LANG_LINE = /^(?:lang|language)[ \t]*:[ \t]*(?:"([^"]*)"|'([^']*)'|([^\s#]+))[ \t]*(?:#.*)?$/;

/**
 * The language a note declares in YAML front matter (`lang:` or `language:` in a `---` block
 * on the first line), or undefined when it declares none. Only the top-level key is read.
 */
export function declaredLanguage(lines: readonly string[]): Language | undefined {
  if (lines.length === 0 || lines[0]!.trim() !== '---') return undefined;
  for (let i = 1; i < lines.length && i < 200; i++) {
    const line = lines[i]!;
    const t = line.trim();
    if (t === '---' || t === '...') return undefined;
    const m = LANG_LINE.exec(line);
    if (m) return languageOf(m[1] ?? m[2] ?? m[3] ?? '');
  }
  return undefined;
}
