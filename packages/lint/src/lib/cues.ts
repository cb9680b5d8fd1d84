// The offline judge's cue lexicons (English and Spanish) and the word-level tests built on
// them: what counts as a usage cue, a behaviour, a lead verb, a parameter mention. Changes when
// the judge learns a new word or phrasing.
import {
  actionVerb,
  cue,
  escapeRegExp,
  isMutationVerb,
  isTokenName,
  mentions,
  mentionsParam,
  nameWordsShared,
  paramOccurrences,
  STOPWORDS,
  tokenize,
  tokens,
  words,
} from './text.js';

/** Explicit "when to use" statements. */
export const WHEN_CUES = [
  cue('(?:use|call|invoke|choose|pick|run|try)\\s+(?:this(?:\\s+tool)?|it)'),
  cue('use\\s+(?:when|whenever|to|for|after|before|once|if)'),
  cue('when\\s+you\\s+(?:need|want|have|already|are|must|only)'),
  cue('(?:useful|ideal|best|intended|meant|designed|suited|made)\\s+(?:for|when|to|after)'),
  cue('(?:start|begin)\\s+(?:here|with\\s+this)'),
  cue('after\\s+(?:obtaining|getting|calling|finding|running|listing|searching|you)'),
  cue(
    '(?:úsal[ao]|úsela|úselo|usa\\s+est[ae]|use\\s+est[ae]|utiliza\\s+est[ae]|utilízal[ao]|empléal[ao]|llámal[ao]|sirve\\s+para|útil\\s+(?:para|cuando)|ideal\\s+para|pensad[ao]\\s+para|diseñad[ao]\\s+para|cuando\\s+(?:necesites|quieras|tengas|ya|el\\s+usuario|se\\s+necesite)|después\\s+de\\s+(?:obtener|buscar|llamar|usar|consultar)|antes\\s+de\\s+(?:llamar|usar|crear|modificar)|tras\\s+(?:obtener|buscar|llamar)|empieza\\s+por\\s+aquí)',
  ),
];

/** Explicit "when not to use" statements and exclusions. */
export const WHEN_NOT_CUES = [
  cue(
    "(?:do\\s+not|don't|never|avoid|not)\\s+(?:use|call|invoke|read|open|pass|show|rely|try|send|fetch|load)",
  ),
  cue('not\\s+(?:for|meant\\s+for|intended\\s+for|suited\\s+for|a\\s+substitute)'),
  cue('instead(?:\\s+of)?'),
  cue('rather\\s+than'),
  cue('only\\s+(?:for|when|if)'),
  cue('no\\s+need\\s+to|not\\s+needed|unnecessary|no\\s+hace\\s+falta|no\\s+es\\s+necesari[oa]'),
  cue(
    '(?:no\\s+(?:uses|use|utilices|llames|sirve\\s+para|es\\s+para|l[ao]s?\\s+(?:uses|utilices|llames))|en\\s+(?:lugar|vez)\\s+de|nunca\\s+(?:uses|utilices|leas|llames|muestres)|evita|sól?o\\s+(?:si|cuando|para)|únicamente\\s+(?:si|cuando|para)|para\\s+\\S+\\s+(?:usa|utiliza)\\s)',
  ),
];

/** Statements that imply a use without saying it outright. */
export const IMPLIED_CUES = [
  cue('so\\s+(?:that|you)'),
  cue('to\\s+avoid'),
  cue('without\\s+(?:having|needing)'),
  cue('(?:sin\\s+que|para\\s+que|para\\s+no)'),
  cue('when|whenever|if|cuando|si'),
];

/** Behaviour evidence categories: what a description can disclose beyond annotations. */
export const BEHAVIOUR: { key: BehaviourKey; label: string; re: RegExp }[] = [
  {
    key: 'limits',
    label: 'limits',
    re: cue(
      '\\d[\\d,._]*\\s*(?:k|kb|kib|mb|mib|gb|gib|bytes?|chars?|characters?|lines?|items?|results?|entries|files?|pages?|tokens?|ms|milliseconds?|seconds?|minutes?|hours?|requests?|calls?|hits?|matches|líneas|caracteres|resultados|archivos|páginas|fragmentos)|at\\s+most|up\\s+to|no\\s+more\\s+than|maximum|max|caps?|capped|limits?|limited|máximo|como\\s+máximo|hasta\\s+\\d+',
    ),
  },
  {
    key: 'pagination',
    label: 'pagination',
    re: cue(
      'paginat\\w*|next_offset|nextoffset|next_start_line|nextstartline|next_cursor|nextcursor|cursor|next\\s+page|truncated|has_more|hasmore|continu\\w+|paginación|paginad[oa]s?|página\\s+siguiente|siguiente\\s+página',
    ),
  },
  {
    key: 'errors',
    label: 'errors',
    re: cue(
      "errors?|fails?|failed|failure|refuse[sd]?|rejects?|rejected|invalid|not\\s+found|does\\s+not\\s+exist|doesn't\\s+exist|missing|raises?|throws?|suggestions?|suggests?|falla|fallo|rechaza|no\\s+existe|sugerencias|inválid[oa]s?",
    ),
  },
  {
    key: 'state',
    label: 'side effects and state',
    re: cue(
      'side[- ]effects?|stateless|no\\s+state|state|atomic\\w*|overwrites?|persist\\w*|cache[sd]?|caching|lock\\w*|in\\s+place|creates?|deletes?|writes?|escribe|guarda|sobrescribe|borra|modifica|atómic\\w*|bloque\\w*',
    ),
  },
  {
    key: 'scope',
    label: 'scope and access',
    re: cue(
      'confined|within\\s+(?:the|its|a|one)\\s+\\w+|root|traversal|symlinks?|authori[sz]\\w*|authenticat\\w*|auth|permissions?|credentials?|api\\s+key|rate[- ]limit\\w*|sandbox\\w*|outside|escapes?|untrusted|local|indexad[oa]s?|únicamente|fuera\\s+de|raíz',
    ),
  },
  {
    key: 'defaults',
    label: 'defaults and edge cases',
    re: cue(
      'defaults?|by\\s+default|when\\s+omitted|if\\s+omitted|omitted|rendered|render\\w*|raw|verbatim|strips?|stripped|normali[sz]\\w*|sorted|ordered|ranked|case[- ](?:in)?sensitive|not\\s+case\\s+sensitive|1-based|0-based|zero-based|one-based|the\\s+first\\s+(?:one|match)|exact|exactas?|exactos?|por\\s+defecto|ordenad[oa]s',
    ),
  },
  {
    key: 'versioning',
    label: 'versions and concurrency',
    re: cue(
      'versions?|versioned|sha-?256|hash(?:es)?|etag|expected_version|expectedversion|expectedsha256|checksum|concurren\\w*|conflicts?|stale|optimistic|versión',
    ),
  },
  {
    key: 'returns',
    label: 'return values',
    re: cue(
      'returns?|devuelve|responds?\\s+with|yields?|the\\s+(?:result|output)\\s+(?:is|has|contains|lists)',
    ),
  },
];

/**
 * Words that carry no fact on their own in a behaviour or parameter sentence ("errors may occur",
 * "limits apply", "must be valid"): a sentence made only of these and category keywords earns no
 * credit.
 */
export const GENERIC = new Set(
  (
    'may might can could occur occurs occurred apply applies applied exist exists supported ' +
    'support supports operation operations ' +
    'handled handle handles handling possible possibly various certain appropriate ' +
    'appropriately accordingly properly correctly proper correct valid invalid well things ' +
    'thing stuff behavior behaviour behaviours behaviors information data case cases also like ' +
    'etc important value values parameter parameters param params argument arguments input ' +
    'inputs option options setting settings set given provided specified used use using usage ' +
    'needed need tool tools puede pueden aplica aplican soporta soportan maneja manejan válido ' +
    'válida'
  ).split(' '),
);

/** The behaviour cues as global patterns, to find every keyword a sentence uses. */
const BEHAVIOUR_GLOBAL: readonly RegExp[] = BEHAVIOUR.map((b) => new RegExp(b.re.source, 'giu'));

const EMPHASIS = new Set(['ALL', 'NOT', 'NEVER', 'ONLY', 'NOTE', 'MUST', 'IMPORTANT', 'WARNING']);

/** True when the text names something code-like: `code`, {json}, snake_case, camelCase, CODES. */
function hasCodeToken(text: string): boolean {
  if (/`[^`]+`|\{[^}]*\}/.test(text)) return true;
  for (const m of text.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const w = m[0];
    if (/[\p{L}\p{N}]_[\p{L}\p{N}]/u.test(w)) return true;
    if (/^[a-z]+[A-Z]/.test(w)) return true;
    if (/^[A-Z][A-Z0-9_]{2,}$/.test(w) && !EMPHASIS.has(w)) return true;
  }
  return false;
}

/**
 * True when a sentence states a checkable fact rather than naming a category: it has a number,
 * or enough specific words once the behaviour keywords, generic words and the tool's own name
 * are set aside ("Paths outside the root are refused" does; "Errors may occur" does not).
 */
export function statesConcreteFact(
  text: string,
  ownWords: ReadonlySet<string> = new Set(),
): boolean {
  if (/\d/.test(text)) return true;
  const covered: [number, number][] = [];
  for (const re of BEHAVIOUR_GLOBAL) {
    for (const m of text.matchAll(re)) covered.push([m.index, m.index + m[0].length]);
  }
  const specific = tokenize(text).filter(
    (t) =>
      !STOPWORDS.has(t.t) &&
      !GENERIC.has(t.t) &&
      !ownWords.has(t.t) &&
      !covered.some(([a, b]) => t.start >= a && t.end <= b),
  ).length;
  // A condition ("if the destination exists, ...") ties the behaviour to a case, which counts.
  const conditional = /(?:^|[\s,;(])(?:if|when|unless|once|si|cuando)\s/iu.test(text) ? 1 : 0;
  if (specific + conditional >= (hasCodeToken(text) ? 1 : 2)) return true;
  // A flat denial ("No cursor or state.") is a definite claim; a hedge ("may", "can") is not.
  return NEGATION.test(text) && !HEDGE.test(text);
}

const NEGATION = cue('no|not|never|none|nothing|without|nunca|ningún|ninguna|sin');
const HEDGE = cue('may|might|could|can|possibly|perhaps|puede|pueden|podría');

export type BehaviourKey =
  | 'limits'
  | 'pagination'
  | 'errors'
  | 'state'
  | 'scope'
  | 'defaults'
  | 'versioning'
  | 'returns';

/** Words that give a parameter mention meaning beyond its name. */
export const PARAM_CUES = cue(
  "default\\w*|1-based|0-based|zero-based|one-based|format|as\\s+returned\\s+by|returned\\s+by|from|pass(?:ed|ing)?|must|cannot|can't|only|omit\\w*|empty|wins|overrides?|instead\\s+of|range|max\\w*|min\\w*|at\\s+most|up\\s+to|e\\.g\\.|like|relative|between|each|per|caps?|selects?|picks?|requires?|to\\s+(?:get|pick|detect|choose|read|select|skip|limit|continue|resume|fetch)|when|if|before|after|back\\s+as|por\\s+defecto|predeterminad[oa]|devuelt[oa]\\s+por|como|desde|hasta|entre|formato|debe|obligatori[oa]|opcional|sól?o|si|cuando|antes|después|máximo|mínimo|rango|omit\\w+|vacío|p\\.\\s?ej\\.|por\\s+ejemplo|cada",
);

export const FILLER = cue(
  'this\\s+tool\\s+(?:allows|lets|enables|is\\s+used|can\\s+be\\s+used)|allows\\s+you\\s+to|enables\\s+you\\s+to|helps\\s+you|powerful|seamless\\w*|easily|simply|comprehensive|robust|various|etc\\.?|in\\s+order\\s+to|basically|very|herramienta\\s+que\\s+permite|permite\\s+al\\s+usuario',
);

export const READ_ONLY_CLAIM = cue(
  'read-only|read\\s+only|has\\s+no\\s+side\\s+effects|no\\s+side\\s+effects|never\\s+(?:writes|modifies|changes)|does\\s+not\\s+(?:write|modify|change)\\s+(?:anything|any\\s+file|files|data|state)|solo\\s+lectura|no\\s+modifica',
);
export const DESTRUCTIVE_CLAIM = cue(
  'permanently\\s+(?:deletes?|removes?|destroys?|erases?)|irreversib\\w*|cannot\\s+be\\s+undone|destroys?|wipes?|borra\\s+definitivamente|irreversible',
);
export const NEGATED_WRITE = cue(
  '(?:never|not|no|without|nothing)\\s+(?:\\w+\\s+)?(?:writes?|modif\\w+|changes?|side[- ]effects?|state)|no\\s+modifica|nunca\\s+escribe',
);

/**
 * Plain statements of what a call does to the world or costs, beyond the cue words above: it
 * sends, notifies, records, logs, snapshots, charges, waits, asks for approval, previews.
 */
export const EFFECT = cue(
  'sends?|sent|notif\\w+|emails?|invit\\w+|posts?\\s+(?:to|a|the)|publish\\w*|records?|logs?|logged|audit\\w*|snapshots?|backups?|back\\s+up|charges?|charged|bill\\w*|costs?|paid|pays?|USDC|\\$\\d|spends?|trigger\\w*|queue\\w*|blocks?\\s+until|synchronous\\w*|asynchronous\\w*|latency|confirm\\w*|approval|dry[-_ ]?run|preview\\w*|irreversib\\w*|cannot\\s+be\\s+undone|permanent\\w*|allocat\\w*|reserv\\w*|signed|signature|receipt|changes\\s+nothing|no\\s+side\\s+effects',
);

/** Sentences that give advice about one parameter ("set `full` only when ..."), not the tool. */
export const PARAM_ADVICE = cue('set|pass|provide|supply|give|omit|leave');

/** Words that carry no usage condition of their own ("use it when needed, otherwise ..."). */
export const USAGE_VOCABULARY = new Set(
  (
    'use used using call invoke choose pick run try tool tools when whenever never instead ' +
    'otherwise needed necessary appropriate relevant applicable required always avoid rather need ' +
    'want case cases prefer usa usar úsalo úsala llama sirve nunca evita lugar vez necesario'
  ).split(' '),
);

const IMPERATIVES = new Set([
  'use',
  'call',
  'pass',
  'see',
  'do',
  'don',
  'never',
  'avoid',
  'prefer',
  'try',
  'usa',
  'no',
  'nunca',
]);

const NAME_WRITES = new Map<string, boolean>();

/** True when a tool name reads as a state change (`create_directory`, `writeFile`); memoized. */
export function nameWrites(name: string): boolean {
  let v = NAME_WRITES.get(name);
  if (v === undefined) {
    v = nameWordsShared(name).some((w) => isMutationVerb(w));
    if (NAME_WRITES.size >= 10_000) NAME_WRITES.clear();
    NAME_WRITES.set(name, v);
  }
  return v;
}

/**
 * The sibling whose name shares the most words with `name` (ties: first in order), among the
 * siblings that do the same kind of thing: a reading tool is pointed at readers, a writing tool
 * at writers (`directory_tree` is not sent to `create_directory`). Undefined when none fits.
 */
export function nearestSibling(name: string, siblings: readonly string[]): string | undefined {
  const mine = new Set(nameWordsShared(name));
  const mode = nameWrites(name);
  let best: string | undefined;
  let bestScore = -1;
  for (const s of siblings) {
    const theirs = nameWordsShared(s);
    let shared = 0;
    for (const w of theirs) if (mine.has(w)) shared++;
    const score = shared / (mine.size + theirs.length - shared || 1);
    // The mode check is dearer than the overlap: only run it for a sibling that would win. A
    // sibling that shares no name word is no nearer than any other and is not suggested.
    if (score > 0 && score > bestScore && nameWrites(s) === mode) {
      best = s;
      bestScore = score;
    }
  }
  return best;
}

/**
 * A "sentence" that is only a list of keywords (three or more words and not one function word,
 * e.g. "Limits, errors, pagination, versions."): it states nothing, so it earns no credit.
 */
export function isKeywordList(text: string): boolean {
  const body = text.replace(/^[^:]{1,30}:\s*/, '');
  const ts = tokens(body);
  if (ts[0] !== undefined && (actionVerb(ts[0]) !== null || IMPERATIVES.has(ts[0]))) return false;
  return ts.length >= 3 && !ts.some((t) => STOPWORDS.has(t));
}

export function anyMatch(res: readonly RegExp[], text: string): boolean {
  return res.some((re) => re.test(text));
}

const ROUTE_BEFORE = new Set([
  'use',
  'call',
  'try',
  'prefer',
  'see',
  'run',
  'usa',
  'llama',
  'prueba',
]);

/**
 * True when the sentence routes to `sibling`: "use <sibling>", "call <sibling>", "<sibling>
 * instead", "<sibling> is for", "<sibling> handles", "<sibling> en su lugar".
 */
export function routesTo(text: string, sibling: string): boolean {
  if (!isTokenName(sibling)) {
    const name = escapeRegExp(sibling);
    return cue(
      `(?:use|call|try|prefer|see|run|usa|llama|prueba)\\s+\`?${name}\`?|\`?${name}\`?\\s+(?:instead|is\\s+for|handles|en\\s+su\\s+lugar)`,
    ).test(text);
  }
  const ts = tokenize(text);
  const n = sibling.toLowerCase();
  for (let i = 0; i < ts.length; i++) {
    if (ts[i]?.t !== n) continue;
    if (ROUTE_BEFORE.has(ts[i - 1]?.t ?? '')) return true;
    const next = ts[i + 1]?.t;
    if (next === 'instead' || next === 'handles') return true;
    if (next === 'is' && ts[i + 2]?.t === 'for') return true;
    if (next === 'en' && ts[i + 2]?.t === 'su' && ts[i + 3]?.t === 'lugar') return true;
  }
  return false;
}

const LEAD_SKIP = new Set(['this', 'tool', 'it', 'that', 'to', 'esta', 'herramienta', 'que']);

/** Words that introduce a verb's object: "Cut a file", "Point to the sections", "Tally all rows". */
const OBJECT_START = new Set(
  (
    'the a an one all every each any this that these those its their your some several many ' +
    'multiple both either up to into onto from over through across between'
  ).split(' '),
);
const PREPOSITION = new Set('to into onto from over through across up out at on in for'.split(' '));

/** Endings of nouns and adjectives that open labels ("Helper for the API", "Wrapper to the"). */
const NOT_A_VERB =
  /(?:tion|sion|ment|ness|ity|ance|ence|ism|ist|er|or|al|ous|ive|ic|ing|ed|ly|ful|less|able|ible|ware|kit)$/i;

/**
 * True when `word`, at the head of the first sentence and followed by `next` and `after`, reads
 * as an imperative verb outside the lexicon: a plain word followed directly by its object ("Cut
 * a file") or by a preposition and its object ("Point to the sections").
 */
function looksImperative(word: string, next: string, after: string): boolean {
  const w = word.toLowerCase();
  if (!/^\p{L}{2,}$/u.test(word) || STOPWORDS.has(w) || NOT_A_VERB.test(w)) return false;
  if (/^\d/.test(next)) return true;
  if (!OBJECT_START.has(next)) return false;
  return !PREPOSITION.has(next) || OBJECT_START.has(after) || /^\d/.test(after);
}

export function leadVerbOf(first: string): { verb: string | null; word: string | null } {
  const ws = words(first)
    .slice(0, 7)
    .map((w) => w.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, ''));
  let checked = 0;
  for (let i = 0; i < ws.length && i < 5; i++) {
    const w = ws[i];
    if (!w) continue;
    const verb = actionVerb(w);
    if (verb) return { verb, word: w };
    if (LEAD_SKIP.has(w.toLowerCase())) continue;
    if (checked === 0) {
      const next = (ws[i + 1] ?? '').toLowerCase();
      const after = (ws[i + 2] ?? '').toLowerCase();
      if (looksImperative(w, next, after)) return { verb: w.toLowerCase(), word: w };
    }
    checked++;
    if (checked >= 2) break;
  }
  return { verb: null, word: null };
}

const ARTICLE = new Set(
  'the a an this that each every one el la los las un una unos unas este esta cada del al'.split(
    ' ',
  ),
);

/**
 * True when `text` refers to parameter `name`: a code-style name (`max_chars`, `startLine`) or a
 * quoted/backticked/`name=` mention always counts; a plain word right after an article ("the
 * file", "el archivo") reads as prose and does not.
 */
export function paramMentioned(text: string, name: string): boolean {
  if (!isTokenName(name)) return mentionsParam(text, name);
  const hits = paramOccurrences(text, name);
  if (hits.length === 0) return false;
  if (/[_A-Z0-9]/.test(name.slice(1))) return true;
  const all = tokenize(text);
  for (const hit of hits) {
    const before = text[hit.start - 1] ?? '';
    const after = text.slice(hit.end).trimStart()[0] ?? '';
    if ('`\'"'.includes(before) && before !== '') return true;
    if (after === '=' || after === ':') return true;
    const i = all.indexOf(hit);
    const prev = i > 0 ? (all[i - 1]?.t ?? '') : '';
    if (!ARTICLE.has(prev)) return true;
  }
  return false;
}

/** True when the sentence opens with the parameter's name ("`offset`: where to start ..."). */
export function startsWithParam(text: string, name: string): boolean {
  const head = text.trimStart().replace(/^[`'"*-]+/, '');
  return (
    head.toLowerCase().startsWith(name.toLowerCase()) &&
    /^[\s`'":=(]/.test(head.slice(name.length) || ' ')
  );
}

export function codeLike(description: string, name: string): boolean {
  if (/[_A-Z]/.test(name.slice(1))) return mentions(description, name);
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`[\`'"{,]\\s*${esc}\\s*[\`'"},:]`, 'i').test(description);
}
