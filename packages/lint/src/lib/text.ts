/** Text helpers for the offline judge: sentences, words, tokens, Unicode-aware cue patterns. */

const WORD_CHAR = '[\\p{L}\\p{N}_]';

/**
 * A case-insensitive Unicode regex matching `source` as whole words (JavaScript's `\b` is
 * ASCII-only, which breaks on words such as "úsalo").
 */
export function cue(source: string, flags = 'iu'): RegExp {
  const key = `${flags}:${source}`;
  let re = CUE_CACHE.get(key);
  if (!re) {
    re = new RegExp(`(?<!${WORD_CHAR})(?:${source})(?!${WORD_CHAR})`, flags);
    if (CUE_CACHE.size >= 4096) CUE_CACHE.clear();
    CUE_CACHE.set(key, re);
  }
  return re;
}

const CUE_CACHE = new Map<string, RegExp>();

/** Escapes a literal for use inside a RegExp. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A token of a text with its position. */
export interface Token {
  /** Lowercased token. */
  t: string;
  start: number;
  end: number;
}

const TOKEN_RE = /[\p{L}\p{N}_]+/gu;
const TOKEN_NAME = /^[\p{L}\p{N}_]+$/u;
const TOKEN_CACHE = new Map<string, Token[]>();

/**
 * The identifier-like tokens of `text` (letters, digits, underscores), lowercased, with their
 * positions; memoized, because the judge asks about the same sentences many times.
 */
export function tokenize(text: string): readonly Token[] {
  let out = TOKEN_CACHE.get(text);
  if (!out) {
    out = [];
    for (const m of text.matchAll(TOKEN_RE)) {
      out.push({ t: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length });
    }
    if (TOKEN_CACHE.size >= 5000) TOKEN_CACHE.clear();
    TOKEN_CACHE.set(text, out);
  }
  return out;
}

/** True when `name` is a single identifier token (`read_page`, `startLine`). */
export function isTokenName(name: string): boolean {
  return TOKEN_NAME.test(name);
}

/** True when `text` contains `name` as a whole identifier (case-insensitive). */
export function mentions(text: string, name: string): boolean {
  if (isTokenName(name)) {
    const n = name.toLowerCase();
    return tokenize(text).some((x) => x.t === n);
  }
  return cue(escapeRegExp(name)).test(text);
}

/** Positions where `text` names `name` or its plural (`names`, `namees`) as a whole token. */
export function paramOccurrences(text: string, name: string): Token[] {
  const n = name.toLowerCase();
  return tokenize(text).filter((x) => x.t === n || x.t === `${n}s` || x.t === `${n}es`);
}

/** True when `text` contains the identifier `name`, or its plural, as a whole word. */
export function mentionsParam(text: string, name: string): boolean {
  if (isTokenName(name)) return paramOccurrences(text, name).length > 0;
  return cue(`${escapeRegExp(name)}(?:s|es)?`).test(text);
}

/** Whitespace-separated words that contain a letter or digit. */
export function words(text: string): string[] {
  return text.split(/\s+/u).filter((w) => /[\p{L}\p{N}]/u.test(w));
}

/** Lowercased identifier-like tokens (letters, digits, underscores). */
export function tokens(text: string): string[] {
  return (text.match(/[\p{L}\p{N}_]+/gu) ?? []).map((t) => t.toLowerCase());
}

/** Splits a tool or parameter name into lowercase words: `atlas_read` / `readPage` / `read-page`. */
export function nameWords(name: string): string[] {
  return [...nameWordsShared(name)];
}

/** {@link nameWords} without the defensive copy (callers must not mutate the result). */
export function nameWordsShared(name: string): readonly string[] {
  let cached = NAME_WORDS.get(name);
  if (!cached) {
    cached = name
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
      .map((w) => w.toLowerCase());
    if (NAME_WORDS.size >= 10_000) NAME_WORDS.clear();
    NAME_WORDS.set(name, cached);
  }
  return cached;
}

const NAME_WORDS = new Map<string, string[]>();

const ABBREVIATIONS = /(?:^|\s)(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|p\.ej|ej|aprox)\.$/i;

/** One sentence or list item of a description. */
export interface Sentence {
  text: string;
  /** Index among all units, in order. */
  index: number;
  /** A label line such as "Behavior & Output:" (not a sentence in its own right). */
  label: boolean;
}

/**
 * Splits a description into sentences: blank lines and list items break units, and inside a
 * unit a `.`, `!` or `?` followed by whitespace ends a sentence unless it closes a common
 * abbreviation (e.g., i.e., etc.). Code spans and file names such as `index.md` stay whole.
 */
export function sentences(description: string): Sentence[] {
  const units: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length) units.push(current.join(' '));
    current = [];
  };
  for (const rawLine of description.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '') {
      flush();
      continue;
    }
    const bullet = /^(?:[-*•]|\d+[.)])\s+/.exec(line);
    if (bullet || /^#{1,6}\s/.test(line)) {
      flush();
      units.push(line.slice(bullet ? bullet[0].length : 0).replace(/^#{1,6}\s+/, ''));
      continue;
    }
    if (/:$/.test(line) && words(line).length <= 6) {
      flush();
      units.push(line);
      continue;
    }
    current.push(line);
  }
  flush();

  const out: Sentence[] = [];
  for (const unit of units) {
    const pieces = unit.split(/(?<=[.!?])\s+/u);
    let buffer = '';
    for (const piece of pieces) {
      buffer = buffer ? `${buffer} ${piece}` : piece;
      if (ABBREVIATIONS.test(buffer)) continue;
      out.push({ text: buffer, index: out.length, label: false });
      buffer = '';
    }
    if (buffer) out.push({ text: buffer, index: out.length, label: false });
  }
  for (const s of out) s.label = /:$/.test(s.text) && words(s.text).length <= 6;
  return out;
}

/**
 * The clause of `sentence` that holds character `at`: the sentence is cut at `;`, at a `:` or a
 * dash between words, and the piece around `at` is returned, trimmed. A sentence without those
 * marks, or an `at` outside it (e.g. -1 for no match), gives the whole sentence.
 */
export function clauseAt(sentence: string, at: number): string {
  if (at < 0 || at >= sentence.length) return sentence.trim();
  const cut = /;\s+|:\s+|\s+[—–-]\s+/g;
  let start = 0;
  for (const m of sentence.matchAll(cut)) {
    const end = m.index ?? 0;
    if (at < end) return sentence.slice(start, end).trim() || sentence.trim();
    start = end + m[0].length;
  }
  return sentence.slice(start).trim() || sentence.trim();
}

/** `a`, `a and b`, `a, b and c`. */
export function joinAnd(parts: readonly string[]): string {
  if (parts.length < 2) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** Shortens `text` to at most `max` characters on a word boundary, with an ellipsis. */
export function excerpt(text: string, max = 90): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[,;:.]$/, '')}…`;
}

/** Function words ignored when comparing content (English and Spanish). */
export const STOPWORDS = new Set(
  (
    'a an the and or but of to in on at by for from with without into onto as is are was were be been ' +
    'being it its this that these those there here which who whom whose what when where why how ' +
    'not no nor so than then too very can could will would should may might must do does did done ' +
    'you your yours we our they them their he she his her i me my one ones any all each per if ' +
    'else also only just about over under up down out off again more most other some such own same ' +
    'el la los las un una unos unas de del al y o u e ni que en por para con sin sobre es son ser ' +
    'se su sus lo le les ya muy más menos como cuando donde si no este esta estos estas ese esa'
  ).split(' '),
);

/** Lowercased tokens that are not function words. */
export function contentTokens(text: string): string[] {
  return tokens(text).filter((t) => !STOPWORDS.has(t) && !/^\d+$/.test(t));
}

const EN_VERBS =
  'read return get fetch retrieve list search find query look lookup write create update delete ' +
  'remove edit modify rename move copy append insert replace patch set add send post upload ' +
  'download run execute start stop open close load save index reindex rebuild parse split chunk ' +
  'convert render outline summarize summarise compute calculate count check validate verify ' +
  'resolve locate map show display extract scan compare diff apply generate export import sync ' +
  'navigate browse inspect describe enumerate score lint clear reset refresh subscribe lock ' +
  'unlock tag publish deploy build install merge commit push pull analyze analyse translate ' +
  'format fill submit approve reject cancel schedule assign archive restore backup sort filter ' +
  'group aggregate measure test explain answer ask notify call invoke trigger watch monitor ' +
  'track report log record capture take make fork clone sign encrypt decrypt hash encode decode ' +
  'compress zip unzip ping echo wait resize crop draw plot transcribe cite expand tail grep glob ' +
  'stat collect gather view preview print emit store purge erase destroy drop upsert point ' +
  'suggest recommend propose cut trim tally identify detect classify rank sample';

const ES_VERBS =
  'leer lee lea lees busca buscar busque lista listar enumera enumerar devuelve devolver obtiene ' +
  'obtener recupera recuperar escribe escribir crea crear actualiza actualizar borra borrar ' +
  'elimina eliminar reindexa reindexar indexa indexar muestra mostrar abre abrir guarda guardar ' +
  'consulta consultar reconstruye reconstruir amplía ampliar encuentra encontrar calcula calcular ' +
  'compara comparar divide dividir resume resumir edita editar modifica modificar mueve mover ' +
  'copia copiar renombra renombrar añade añadir agrega agregar inserta insertar reemplaza ' +
  'reemplazar extrae extraer genera generar valida validar verifica verificar comprueba comprobar ' +
  'cuenta contar localiza localizar descarga descargar sube subir envía enviar ejecuta ejecutar ' +
  'revisa revisar cita citar';

const VERBS = new Set([...EN_VERBS.split(' '), ...ES_VERBS.split(' ')]);

const MUTATION = new Set(
  (
    'create write update delete remove modify insert append overwrite rename move drop edit upload ' +
    'replace patch reindex rebuild publish deploy send post submit save store purge erase destroy ' +
    'upsert crea crear escribe escribir actualiza actualizar borra borrar elimina eliminar modifica ' +
    'modificar reindexa reindexar guarda guardar renombra renombrar mueve mover inserta insertar ' +
    'añade añadir agrega agregar reemplaza reemplazar edita editar envía enviar sube subir'
  ).split(' '),
);

function verbStems(word: string): string[] {
  const w = word.toLowerCase();
  const out = [w];
  if (w.endsWith('ies')) out.push(`${w.slice(0, -3)}y`);
  if (w.endsWith('es')) out.push(w.slice(0, -2));
  if (w.endsWith('s')) out.push(w.slice(0, -1));
  return out;
}

/** The base form when `word` is a known action verb (English or Spanish), else null. */
export function actionVerb(word: string): string | null {
  for (const stem of verbStems(word)) if (VERBS.has(stem)) return stem;
  return null;
}

/** True when `word` is a verb that changes state (create, write, delete, borra, ...). */
export function isMutationVerb(word: string): boolean {
  return verbStems(word).some((s) => MUTATION.has(s));
}
