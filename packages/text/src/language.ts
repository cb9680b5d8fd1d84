/**
 * The languages the analysis chain knows: every language that has both a Snowball stemmer and
 * a stop word list, by its ISO 639-1 code, and `simple` for text whose words are only folded
 * (case and accents), never stemmed, with no stop words.
 */
export type Language =
  | 'ar'
  | 'ca'
  | 'cs'
  | 'da'
  | 'de'
  | 'en'
  | 'es'
  | 'eu'
  | 'fi'
  | 'fr'
  | 'ga'
  | 'hu'
  | 'hy'
  | 'it'
  | 'nl'
  | 'no'
  | 'pt'
  | 'ro'
  | 'ru'
  | 'sl'
  | 'sv'
  | 'tr'
  | 'simple';

/** A language that is stemmed (every {@link Language} but `simple`). */
export type StemmedLanguage = Exclude<Language, 'simple'>;

interface LanguageInfo {
  /** ISO 639-3 code, as franc and the stopword package name it. */
  iso3: string;
  /** Other ISO 639-3 codes franc may answer for it. */
  francAlso?: string[];
  /** The key of its list in the stopword package. */
  stopword: string;
  /** The name of its algorithm in snowball-stemmers. */
  snowball: string;
  /** English and native names (folded) that also name it. */
  names: string[];
}

/** What the chain knows of each stemmed language. */
export const LANGUAGE_INFO: Readonly<Record<StemmedLanguage, LanguageInfo>> = {
  ar: {
    iso3: 'arb',
    francAlso: ['ara'],
    stopword: 'ara',
    snowball: 'arabic',
    names: ['arabic', 'ara', 'arabe'],
  },
  ca: { iso3: 'cat', stopword: 'cat', snowball: 'catalan', names: ['catalan', 'catala'] },
  cs: { iso3: 'ces', stopword: 'ces', snowball: 'czech', names: ['czech', 'cze', 'cestina'] },
  da: { iso3: 'dan', stopword: 'dan', snowball: 'danish', names: ['danish', 'dansk'] },
  de: {
    iso3: 'deu',
    stopword: 'deu',
    snowball: 'german',
    names: ['german', 'ger', 'deutsch', 'aleman'],
  },
  en: {
    iso3: 'eng',
    stopword: 'eng',
    snowball: 'english',
    names: ['english', 'ingles', 'anglais', 'englisch'],
  },
  es: {
    iso3: 'spa',
    stopword: 'spa',
    snowball: 'spanish',
    names: ['spanish', 'espanol', 'castellano', 'espagnol', 'spanisch'],
  },
  eu: {
    iso3: 'eus',
    stopword: 'eus',
    snowball: 'basque',
    names: ['basque', 'baq', 'euskara', 'vasco'],
  },
  fi: { iso3: 'fin', stopword: 'fin', snowball: 'finnish', names: ['finnish', 'suomi'] },
  fr: {
    iso3: 'fra',
    stopword: 'fra',
    snowball: 'french',
    names: ['french', 'fre', 'francais', 'frances'],
  },
  ga: { iso3: 'gle', stopword: 'gle', snowball: 'irish', names: ['irish', 'gaeilge'] },
  hu: { iso3: 'hun', stopword: 'hun', snowball: 'hungarian', names: ['hungarian', 'magyar'] },
  hy: { iso3: 'hye', stopword: 'hye', snowball: 'armenian', names: ['armenian', 'arm'] },
  it: { iso3: 'ita', stopword: 'ita', snowball: 'italian', names: ['italian', 'italiano'] },
  nl: { iso3: 'nld', stopword: 'nld', snowball: 'dutch', names: ['dutch', 'dut', 'nederlands'] },
  no: {
    iso3: 'nob',
    francAlso: ['nno'],
    stopword: 'nob',
    snowball: 'norwegian',
    names: ['norwegian', 'nor', 'nb', 'nn', 'nno', 'norsk', 'bokmal', 'nynorsk'],
  },
  pt: { iso3: 'por', stopword: 'por', snowball: 'portuguese', names: ['portuguese', 'portugues'] },
  ro: { iso3: 'ron', stopword: 'ron', snowball: 'romanian', names: ['romanian', 'rum', 'romana'] },
  ru: { iso3: 'rus', stopword: 'rus', snowball: 'russian', names: ['russian', 'russkii'] },
  sl: {
    iso3: 'slv',
    stopword: 'slv',
    snowball: 'slovene',
    names: ['slovene', 'slovenian', 'slovenscina'],
  },
  sv: { iso3: 'swe', stopword: 'swe', snowball: 'swedish', names: ['swedish', 'svenska'] },
  tr: { iso3: 'tur', stopword: 'tur', snowball: 'turkish', names: ['turkish', 'turkce'] },
};

/** Every stemmed language, in a stable order. */
export const STEMMED_LANGUAGES: readonly StemmedLanguage[] = Object.keys(
  LANGUAGE_INFO,
) as StemmedLanguage[];

/** Every {@link Language}, `simple` last. */
export const LANGUAGES: readonly Language[] = [...STEMMED_LANGUAGES, 'simple'];

const ALIASES: ReadonlyMap<string, Language> = (() => {
  const map = new Map<string, Language>([['simple', 'simple']]);
  for (const code of STEMMED_LANGUAGES) {
    const info = LANGUAGE_INFO[code];
    map.set(code, code);
    map.set(info.iso3, code);
    map.set(info.stopword, code);
    map.set(info.snowball, code);
    for (const other of info.francAlso ?? []) map.set(other, code);
    for (const name of info.names) map.set(name, code);
  }
  return map;
})();

/** True when `value` is a {@link Language} code. */
export function isLanguage(value: string): value is Language {
  return (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The {@link Language} a tag or name stands for: BCP 47 tags (`en`, `en-GB`, `es_MX`), ISO
 * 639-3 codes (`spa`), English and native names (`English`, `español`, `Deutsch`), case and
 * accents ignored. Anything else is `simple`.
 */
export function languageFromTag(tag: string): Language {
  const folded = tag
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .trim()
    .toLowerCase();
  const base = folded.split(/[-_]/)[0] ?? '';
  return ALIASES.get(folded) ?? ALIASES.get(base) ?? 'simple';
}

// `lang: es`, `language: "en-US"`, `lang: 'es' # comment`
const LANG_LINE = /^(?:lang|language)[ \t]*:[ \t]*(?:"([^"]*)"|'([^']*)'|([^\s#]+))[ \t]*(?:#.*)?$/;

/**
 * The language a Markdown text declares in YAML front matter (a top-level `lang:` or
 * `language:` in a `---` block on the first line), or undefined when it declares none. Takes the
 * text's lines (only the front matter is read).
 */
export function declaredLanguage(lines: readonly string[]): Language | undefined {
  if (lines.length === 0 || lines[0]!.replace(/^\uFEFF/, '').trim() !== '---') return undefined;
  for (let i = 1; i < lines.length && i < 200; i++) {
    const line = lines[i]!;
    const t = line.trim();
    if (t === '---' || t === '...') return undefined;
    const m = LANG_LINE.exec(line);
    if (m) return languageFromTag(m[1] ?? m[2] ?? m[3] ?? '');
  }
  return undefined;
}
