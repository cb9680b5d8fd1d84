import { coherenceOffline } from './coherence.js';
import {
  defaultWeights,
  featureVector,
  type ModelWeights,
  predictScores,
  type RuleScores,
} from './model.js';
import { topLevelParams } from './signals.js';
import {
  actionVerb,
  clauseAt,
  contentTokens,
  cue,
  escapeRegExp,
  excerpt,
  isMutationVerb,
  isTokenName,
  joinAnd,
  mentions,
  mentionsParam,
  nameWords,
  nameWordsShared,
  paramOccurrences,
  type Sentence,
  STOPWORDS,
  sentences,
  tokenize,
  tokens,
  words,
} from './text.js';
import {
  type CoherenceJudgeInput,
  type CoherenceJudgement,
  DIMENSIONS,
  type Dimension,
  type DimensionJudgement,
  type Judge,
  type ToolJudgeInput,
  type ToolJudgement,
} from './types.js';

/* ---------------------------------------------------------------- cue lexicons */

/** Explicit "when to use" statements. */
const WHEN_CUES = [
  cue('(?:use|call|invoke|choose|pick|run|try)\\s+(?:this(?:\\s+tool)?|it)'),
  cue('use\\s+(?:when|whenever|to|for|after|before|once|if)'),
  cue('when\\s+you\\s+(?:need|want|have|already|are|must|only)'),
  cue('(?:useful|ideal|best|intended|meant|designed|suited|made)\\s+(?:for|when|to|after)'),
  cue('(?:start|begin)\\s+(?:here|with\\s+this)'),
  cue('after\\s+(?:obtaining|getting|calling|finding|running|listing|searching|you)'),
  cue(
    '(?:úsal[ao]|úsela|úselo|usa\\s+est[ae]|use\\s+est[ae]|llámal[ao]|sirve\\s+para|útil\\s+(?:para|cuando)|pensad[ao]\\s+para|cuando\\s+(?:necesites|quieras|tengas|ya)|después\\s+de\\s+(?:obtener|buscar|llamar|usar)|tras\\s+(?:obtener|buscar|llamar))',
  ),
];

/** Explicit "when not to use" statements and exclusions. */
const WHEN_NOT_CUES = [
  cue(
    "(?:do\\s+not|don't|never|avoid|not)\\s+(?:use|call|invoke|read|open|pass|show|rely|try|send|fetch|load)",
  ),
  cue('not\\s+(?:for|meant\\s+for|intended\\s+for|suited\\s+for|a\\s+substitute)'),
  cue('instead(?:\\s+of)?'),
  cue('rather\\s+than'),
  cue('only\\s+(?:for|when|if)'),
  cue('no\\s+need\\s+to|not\\s+needed|unnecessary|no\\s+hace\\s+falta|no\\s+es\\s+necesari[oa]'),
  cue(
    '(?:no\\s+(?:uses|use|llames|sirve\\s+para|es\\s+para|lo\\s+uses|la\\s+uses)|en\\s+(?:lugar|vez)\\s+de|nunca\\s+(?:uses|leas|llames|muestres)|evita)',
  ),
];

/** Statements that imply a use without saying it outright. */
const IMPLIED_CUES = [
  cue('so\\s+(?:that|you)'),
  cue('to\\s+avoid'),
  cue('without\\s+(?:having|needing)'),
  cue('(?:sin\\s+que|para\\s+que|para\\s+no)'),
  cue('when|whenever|if|cuando|si'),
];

/** Behaviour evidence categories: what a description can disclose beyond annotations. */
const BEHAVIOUR: { key: BehaviourKey; label: string; re: RegExp }[] = [
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
const GENERIC = new Set(
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
const PARAM_CUES = cue(
  "default\\w*|1-based|0-based|zero-based|one-based|format|as\\s+returned\\s+by|returned\\s+by|from|pass(?:ed|ing)?|must|cannot|can't|only|omit\\w*|empty|wins|overrides?|instead\\s+of|range|max\\w*|min\\w*|at\\s+most|up\\s+to|e\\.g\\.|like|relative|between|each|per|caps?|selects?|picks?|requires?|to\\s+(?:get|pick|detect|choose|read|select|skip|limit|continue|resume|fetch)|when|if|before|after|back\\s+as|por\\s+defecto|devuelt[oa]\\s+por|como|desde|hasta|entre",
);

const FILLER = cue(
  'this\\s+tool\\s+(?:allows|lets|enables|is\\s+used|can\\s+be\\s+used)|allows\\s+you\\s+to|enables\\s+you\\s+to|helps\\s+you|powerful|seamless\\w*|easily|simply|comprehensive|robust|various|etc\\.?|in\\s+order\\s+to|basically|very|herramienta\\s+que\\s+permite|permite\\s+al\\s+usuario',
);

const READ_ONLY_CLAIM = cue(
  'read-only|read\\s+only|has\\s+no\\s+side\\s+effects|no\\s+side\\s+effects|never\\s+(?:writes|modifies|changes)|does\\s+not\\s+(?:write|modify|change)\\s+(?:anything|any\\s+file|files|data|state)|solo\\s+lectura|no\\s+modifica',
);
const DESTRUCTIVE_CLAIM = cue(
  'permanently\\s+(?:deletes?|removes?|destroys?|erases?)|irreversib\\w*|cannot\\s+be\\s+undone|destroys?|wipes?|borra\\s+definitivamente|irreversible',
);
const NEGATED_WRITE = cue(
  '(?:never|not|no|without|nothing)\\s+(?:\\w+\\s+)?(?:writes?|modif\\w+|changes?|side[- ]effects?|state)|no\\s+modifica|nunca\\s+escribe',
);

/**
 * Plain statements of what a call does to the world or costs, beyond the cue words above: it
 * sends, notifies, records, logs, snapshots, charges, waits, asks for approval, previews.
 */
const EFFECT = cue(
  'sends?|sent|notif\\w+|emails?|invit\\w+|posts?\\s+(?:to|a|the)|publish\\w*|records?|logs?|logged|audit\\w*|snapshots?|backups?|back\\s+up|charges?|charged|bill\\w*|costs?|paid|pays?|USDC|\\$\\d|spends?|trigger\\w*|queue\\w*|blocks?\\s+until|synchronous\\w*|asynchronous\\w*|latency|confirm\\w*|approval|dry[-_ ]?run|preview\\w*|irreversib\\w*|cannot\\s+be\\s+undone|permanent\\w*|allocat\\w*|reserv\\w*|signed|signature|receipt|changes\\s+nothing|no\\s+side\\s+effects',
);

/** Sentences that give advice about one parameter ("set `full` only when ..."), not the tool. */
const PARAM_ADVICE = cue('set|pass|provide|supply|give|omit|leave');

/* ---------------------------------------------------------------- analysis */

export interface ParamEvidence {
  name: string;
  mentioned: boolean;
  explained: boolean;
  redundant: boolean;
  sentence?: string;
}

/** Everything the offline judge reads from one definition (exported for the fitted model). */
export interface Analysis {
  description: string;
  units: Sentence[];
  /** Sentences that are bare keyword lists (no function words); they earn no credit. */
  keywordLists: string[];
  wordCount: number;
  first: string;
  leadVerb: string | null;
  leadWord: string | null;
  siblings: string[];
  /** The unnamed sibling whose name is closest to this tool's (for fix suggestions). */
  nearestUnnamed: string | undefined;
  /** The first sibling that does the same kind of thing (read or write) and is not excluded. */
  sameMode: (exclude?: readonly string[]) => string | undefined;
  /** Siblings named in a sentence with enough words to relate them to this tool. */
  siblingsNamed: string[];
  whenSentences: string[];
  notSentences: string[];
  siblingsInUsage: string[];
  alternatives: string[];
  implied: boolean;
  behaviour: Map<BehaviourKey, string>;
  /**
   * For each behaviour found, the clause of its sentence where the cue matched (split at `;`,
   * `:` and dashes), so evidence quotes the words that earn the point rather than the sentence's
   * opening.
   */
  behaviourClause: Map<BehaviourKey, string>;
  /** Sentences that name a behaviour category without stating a fact ("errors may occur"). */
  vagueBehaviour: string[];
  /** Usage-shaped sentences with no condition in them ("use it when you need to read a note"). */
  hollowUsage: string[];
  params: ParamEvidence[];
  outputFieldsRestated: string[];
  fillers: string[];
  duplicateSentences: number;
  degenerate: boolean;
  restatesName: boolean;
  contradiction: string | null;
  hintsDeclared: boolean;
  mutating: boolean;
  /** Sentences that say in plain words what a call does to the world or costs. */
  effects: string[];
  /** Parameters whose schema default, range or choices the description repeats. */
  restatedSchema: { name: string; sentence: string }[];
  /** Usage-shaped sentences that advise on one parameter rather than on the tool. */
  paramAdvice: string[];
  /** Short label lines ("Args:", "Returns:") that structure the description. */
  labels: number;
}

/** Words that carry no usage condition of their own ("use it when needed, otherwise ..."). */
const USAGE_VOCABULARY = new Set(
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
function nameWrites(name: string): boolean {
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

function anyMatch(res: readonly RegExp[], text: string): boolean {
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
function routesTo(text: string, sibling: string): boolean {
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

function leadVerbOf(first: string): { verb: string | null; word: string | null } {
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
function paramMentioned(text: string, name: string): boolean {
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
function startsWithParam(text: string, name: string): boolean {
  const head = text.trimStart().replace(/^[`'"*-]+/, '');
  return (
    head.toLowerCase().startsWith(name.toLowerCase()) &&
    /^[\s`'":=(]/.test(head.slice(name.length) || ' ')
  );
}

function codeLike(description: string, name: string): boolean {
  if (/[_A-Z]/.test(name.slice(1))) return mentions(description, name);
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`[\`'"{,]\\s*${esc}\\s*[\`'"},:]`, 'i').test(description);
}

/** Reads one definition sentence by sentence into the evidence the judge scores from. */
export function analyze(input: ToolJudgeInput): Analysis {
  const { tool, signals, siblingToolNames } = input;
  const description = (tool.description ?? '').trim();
  const all = sentences(description);
  const units = all.filter((s) => !s.label);
  const wordCount = words(description).length;
  const first = units[0]?.text ?? description;
  const lead = leadVerbOf(first);
  const siblings = [...new Set(siblingToolNames.filter((s) => s !== tool.name))];
  // Only siblings the text names can matter sentence by sentence; find them with one token set
  // so a server with hundreds of tools stays linear.
  const descTokens = new Set(tokens(description));
  const named = siblings.filter((s) =>
    isTokenName(s) ? descTokens.has(s.toLowerCase()) : mentions(description, s),
  );
  const namedSet = new Set(named);
  const sameMode = (exclude: readonly string[] = []) =>
    siblings.find((x) => !exclude.includes(x) && nameWrites(x) === nameWrites(tool.name));
  const nearestUnnamed = nearestSibling(
    tool.name,
    siblings.filter((s) => !namedSet.has(s)),
  );

  const whenSentences: string[] = [];
  const notSentences: string[] = [];
  const hollowUsage: string[] = [];
  const usage = new Set<number>();
  const lists = new Set(units.filter((s) => isKeywordList(s.text)).map((s) => s.index));
  const selfAndSiblings = new Set([tool.name, ...named].map((n) => n.toLowerCase()));
  // Words a usage sentence gets no credit for repeating. A routing sentence must carry a
  // condition beyond the tool's own name ("use note_write instead" after "read a note" says
  // nothing); a "when" sentence must also say more than the title and the purpose sentence
  // ("use this tool when you need to read a note" states no condition at all).
  const ownNameWords = new Set(nameWords(tool.name));
  const restated = new Set([
    ...nameWords(typeof tool.title === 'string' ? tool.title : ''),
    ...contentTokens(first),
  ]);
  const nameTitleWords = new Set([
    ...ownNameWords,
    ...nameWords(typeof tool.title === 'string' ? tool.title : ''),
  ]);
  const firstIndex = units[0]?.index ?? -1;
  const toolParams = topLevelParams(tool.inputSchema).map(([n]) => n);
  const paramAdvice: string[] = [];
  for (const s of units) {
    if (lists.has(s.index)) continue;
    // "Set `full` only when ..." advises on one parameter: it is parameter meaning, not a rule
    // for when to call the tool, unless it also names the tool or a sibling.
    if (
      s.index !== firstIndex &&
      toolParams.some((p) => paramMentioned(s.text, p)) &&
      (PARAM_ADVICE.test(s.text) || toolParams.some((p) => startsWithParam(s.text, p))) &&
      !named.some((sib) => mentions(s.text, sib)) &&
      !mentions(s.text, tool.name)
    ) {
      if (anyMatch(WHEN_CUES, s.text) || anyMatch(WHEN_NOT_CUES, s.text)) paramAdvice.push(s.text);
      continue;
    }
    // One clause earns one claim: "Call it once X gave you an id; to list files, use Y instead"
    // holds a "when" and a "when not", each quoted on its own; a single clause that reads as both
    // counts as the exclusion when it routes to a sibling or carries an exclusion cue.
    const clauses = s.text.split(/;\s+/).filter((c) => c.trim() !== '');
    let claimed = false;
    let shaped = false;
    for (const text of clauses) {
      const n = words(text).length;
      const condition = contentTokens(text).filter(
        (t) => !USAGE_VOCABULARY.has(t) && !selfAndSiblings.has(t) && !ownNameWords.has(t),
      );
      const substance = condition.length;
      const alt = named.some((sib) => routesTo(text, sib));
      // A "when" tied to a named sibling ("after X returned an id") is workflow, which counts.
      const whenSubstance =
        condition.filter((t) => s.index === firstIndex || !restated.has(t)).length +
        (named.some((sib) => mentions(text, sib)) ? 1 : 0);
      const whenCue = n >= 5 && anyMatch(WHEN_CUES, text);
      const notCue = (n >= 4 && anyMatch(WHEN_NOT_CUES, text)) || alt;
      const isNot = notCue && substance >= (alt ? 1 : 2);
      const isWhen = whenCue && whenSubstance >= 2;
      if (whenCue || notCue) shaped = true;
      if (isNot && (alt || !isWhen || anyMatch(WHEN_NOT_CUES, text))) {
        notSentences.push(text);
        claimed = true;
      } else if (isWhen) {
        whenSentences.push(text);
        claimed = true;
      }
    }
    if (claimed) usage.add(s.index);
    if (shaped && !claimed && s.index !== firstIndex) hollowUsage.push(s.text);
  }
  const hollowSet = new Set(hollowUsage);
  const siblingsNamed = named.filter((sib) =>
    units.some((s) => {
      if (lists.has(s.index) || hollowSet.has(s.text) || !mentions(s.text, sib)) return false;
      const ws = words(s.text);
      const count = named.filter((x) => mentions(s.text, x)).length;
      return ws.length >= 5 && count / ws.length <= 0.5;
    }),
  );
  const usageTexts = [...whenSentences, ...notSentences];
  const siblingsInUsage = named.filter((sib) => usageTexts.some((t) => mentions(t, sib)));
  const alternatives = named.filter((sib) => notSentences.some((t) => mentions(t, sib)));
  const adviceSet = new Set(paramAdvice);
  const implied =
    siblingsNamed.length > 0 ||
    units.some(
      (s) => !hollowSet.has(s.text) && !adviceSet.has(s.text) && anyMatch(IMPLIED_CUES, s.text),
    );

  const hasOutput = signals.hasOutputSchema;
  const av = signals.annotationValues;
  const hintsDeclared =
    av.readOnly !== null ||
    av.destructive !== null ||
    av.idempotent !== null ||
    av.openWorld !== null;
  const behaviour = new Map<BehaviourKey, string>();
  const behaviourClause = new Map<BehaviourKey, string>();
  const vagueBehaviour: string[] = [];
  for (const s of units) {
    if (usage.has(s.index) || lists.has(s.index)) continue;
    const concrete = statesConcreteFact(s.text, nameTitleWords);
    let found = 0;
    for (const cat of BEHAVIOUR) {
      if (found >= 2) break;
      if (behaviour.has(cat.key)) continue;
      if (cat.key === 'returns' && hasOutput) continue;
      if (cat.key === 'state' && av.readOnly === true && NEGATED_WRITE.test(s.text)) continue;
      if (cat.re.test(s.text)) {
        if (!concrete) {
          vagueBehaviour.push(s.text);
          break;
        }
        behaviour.set(cat.key, s.text);
        behaviourClause.set(cat.key, clauseAt(s.text, s.text.search(cat.re)));
        found++;
      }
    }
  }

  const paramNames = new Set(topLevelParams(tool.inputSchema).map(([n]) => n.toLowerCase()));
  const params: ParamEvidence[] = topLevelParams(tool.inputSchema).map(([name, schema]) => {
    const schemaDesc = typeof schema.description === 'string' ? schema.description : '';
    const schemaWords = new Set(contentTokens(schemaDesc));
    const own = new Set(nameWords(name).concat(name.toLowerCase()));
    const hits = units.filter((s) => !lists.has(s.index) && paramMentioned(s.text, name));
    let explained = false;
    let redundant = false;
    let sentence: string | undefined;
    for (const s of hits) {
      if (!PARAM_CUES.test(s.text)) continue;
      const content = contentTokens(s.text).filter((t) => !own.has(t));
      // "`offset` must be valid" names the parameter and a cue but says nothing about it.
      if (!/\d/.test(s.text) && !content.some((t) => !GENERIC.has(t) && !paramNames.has(t))) {
        continue;
      }
      const overlap = content.filter((t) => schemaWords.has(t)).length;
      if (content.length > 0 && schemaWords.size > 0 && overlap / content.length >= 0.7) {
        redundant = true;
        sentence ??= s.text;
        continue;
      }
      explained = true;
      sentence = s.text;
      break;
    }
    return { name, mentioned: hits.length > 0, explained, redundant, sentence };
  });

  const effects = units
    .filter((s) => !usage.has(s.index) && !lists.has(s.index) && EFFECT.test(s.text))
    .map((s) => s.text);
  const restatedSchema: { name: string; sentence: string }[] = [];
  for (const [name, schema] of topLevelParams(tool.inputSchema)) {
    const facts: string[] = [];
    for (const key of ['default', 'minimum', 'maximum', 'minLength', 'maxLength']) {
      const v = schema[key];
      if (typeof v === 'number' || (typeof v === 'string' && v.length > 0 && v.length < 40)) {
        facts.push(String(v));
      }
    }
    if (Array.isArray(schema.enum)) {
      for (const v of schema.enum)
        if (typeof v === 'string' || typeof v === 'number') facts.push(String(v));
    }
    if (facts.length === 0) continue;
    const hit = units.find(
      (s) =>
        paramMentioned(s.text, name) &&
        facts.some((f) =>
          new RegExp(`(?:^|[^\\p{L}\\p{N}_.])${escapeRegExp(f)}(?![\\p{L}\\p{N}_])`, 'u').test(
            s.text,
          ),
        ),
    );
    if (hit) restatedSchema.push({ name, sentence: hit.text });
  }

  const outputNames = topLevelParams(tool.outputSchema ?? null).map(([n]) => n);
  const inputNames = new Set(params.map((p) => p.name));
  const outputFieldsRestated = outputNames.filter(
    (n) => n.length >= 3 && !inputNames.has(n) && codeLike(description, n),
  );

  const fillers = units.flatMap((s) => {
    const m = s.text.match(new RegExp(FILLER.source, 'giu'));
    return m ?? [];
  });
  const normalized = units.map((s) => contentTokens(s.text).join(' ')).filter(Boolean);
  const duplicateSentences = normalized.length - new Set(normalized).size;

  const nameTitle = new Set([
    ...nameWords(tool.name),
    ...nameWords(typeof tool.title === 'string' ? tool.title : ''),
    ...nameWords(typeof tool.annotations?.title === 'string' ? tool.annotations.title : ''),
  ]);
  const firstExtra = contentTokens(first).filter(
    (t) => !nameTitle.has(t) && !STOPWORDS.has(t) && t !== lead.verb,
  );
  const restatesName = firstExtra.length === 0;
  const degenerate = wordCount <= 2;

  let contradiction: string | null = null;
  if (av.readOnly === true && lead.verb && isMutationVerb(lead.verb)) {
    contradiction = `readOnlyHint is true but the description opens with "${lead.word}", a state-changing verb`;
  } else if (av.readOnly === false && READ_ONLY_CLAIM.test(description)) {
    const m = description.match(READ_ONLY_CLAIM);
    contradiction = `readOnlyHint is false but the description claims "${m?.[0]}"`;
  } else if (av.destructive === false && DESTRUCTIVE_CLAIM.test(description)) {
    const m = description.match(DESTRUCTIVE_CLAIM);
    contradiction = `destructiveHint is false but the description says "${m?.[0]}"`;
  }
  const mutating =
    av.readOnly === false ||
    (av.readOnly === null && lead.verb !== null && isMutationVerb(lead.verb));

  return {
    description,
    units,
    keywordLists: [...lists].map((i) => units.find((u) => u.index === i)?.text ?? ''),
    wordCount,
    first,
    leadVerb: lead.verb,
    leadWord: lead.word,
    siblings,
    nearestUnnamed,
    sameMode,
    siblingsNamed,
    whenSentences,
    notSentences,
    siblingsInUsage,
    alternatives,
    implied,
    behaviour,
    behaviourClause,
    vagueBehaviour,
    hollowUsage,
    params,
    outputFieldsRestated,
    fillers,
    duplicateSentences,
    degenerate,
    restatesName,
    contradiction,
    hintsDeclared,
    mutating,
    effects,
    restatedSchema,
    paramAdvice,
    labels: all.length - units.length,
  };
}

/* ---------------------------------------------------------------- dimensions */

const q = (text: string, max = 90) => `"${excerpt(text, max)}"`;
const list = (names: readonly string[]) => names.join(', ');

function judgement(score: number, justification: string, fix: string): DimensionJudgement {
  return { score, justification, fix };
}

function purpose(a: Analysis, input: ToolJudgeInput): DimensionJudgement {
  const { siblings } = a;
  if (a.degenerate) {
    return judgement(
      1,
      `The description is ${q(a.description)}: one or two words cannot say what the tool does.`,
      'Open with one sentence naming the action and the resource, e.g. "<Verb> <resource> by <key>".',
    );
  }
  if (a.restatesName) {
    return judgement(
      2,
      `The first sentence ${q(a.first)} only restates the tool name or title; it adds no information about what ${input.tool.name} does.`,
      'Replace it with what the tool does: a specific verb, the resource, and the scope (one item, a range, a whole set).',
    );
  }
  const ws = words(a.first).length;
  const specific = a.leadVerb !== null && ws >= 5 && contentTokens(a.first).length >= 3;
  if (!specific) {
    const why = a.leadVerb
      ? `it starts with "${a.leadWord}" but says too little about the resource`
      : 'it does not open with an action verb';
    return judgement(
      3,
      `The purpose is vague: in ${q(a.first)} ${why}.`,
      'Lead with a specific verb and the resource it acts on, e.g. "Read one section of a document by its anchor".',
    );
  }
  const scoped = cue(
    'by|from|in|within|one|single|only|each|exact|numbered|whole|all|per|using|across|de\\s+un|de\\s+una|por|dentro',
  ).test(a.first);
  const distinguishes =
    siblings.length === 0
      ? scoped
      : a.alternatives.length > 0 || a.siblingsNamed.length >= Math.min(2, siblings.length);
  const lead = `Leads with the verb "${a.leadWord}" and the resource in ${q(a.first)}`;
  if (distinguishes) {
    const how =
      siblings.length === 0
        ? 'and scopes it precisely; there are no sibling tools to tell apart.'
        : `and sets it apart from siblings by naming ${list(a.siblingsNamed.length ? a.siblingsNamed : a.alternatives)} in relation to it.`;
    return judgement(5, `${lead} ${how}`, 'No change needed: keep the purpose sentence first.');
  }
  const missing: string[] = [];
  if (a.nearestUnnamed) missing.push(a.nearestUnnamed);
  for (const s of siblings) {
    if (missing.length >= 2) break;
    if (!a.siblingsNamed.includes(s) && !missing.includes(s)) missing.push(s);
  }
  const why =
    siblings.length === 0
      ? 'but does not scope it (which item, by what key, from where).'
      : a.siblingsNamed.length
        ? `and mentions ${list(a.siblingsNamed)}, but does not say how it differs from ${list(missing)}.`
        : `but never says how it differs from its siblings (${list(siblings.slice(0, 3))}).`;
  return judgement(
    4,
    `${lead} ${why}`,
    siblings.length === 0
      ? 'Add the scope to the first sentence: by what key, from where, one item or many.'
      : `Name the nearest sibling and the boundary, e.g. "for <other need>, use ${a.nearestUnnamed ?? a.sameMode() ?? '<sibling for that need>'} instead".`,
  );
}

function usageGuidelines(a: Analysis): DimensionJudgement {
  const near = a.nearestUnnamed;
  if (a.degenerate) {
    return judgement(
      1,
      `Nothing in ${q(a.description)} says when to call the tool.`,
      'Add a "Use it when/after ..." sentence and a "Do not use it for ...; use <sibling> instead" sentence.',
    );
  }
  const when = a.whenSentences[0];
  const not = a.notSentences[0];
  const named = a.siblingsInUsage;
  if (when && not && (a.siblings.length === 0 || named.length > 0)) {
    return judgement(
      5,
      `States when to use it (${q(when, 70)}) and when not (${q(not, 70)})${named.length ? `, naming ${list(named)}` : ''}.`,
      'No change needed: keep the when / when-not pair with the sibling names.',
    );
  }
  // A boundary that routes the excluded case to a named sibling ("to filter by user, use X
  // instead") tells an agent which tool answers which question; when every sibling is accounted
  // for, the "when" is the rest of the scope and the guidance is complete.
  const accounted = new Set([...a.siblingsNamed, ...a.alternatives]);
  if (
    not &&
    a.alternatives.length > 0 &&
    a.siblings.every((s) => accounted.has(s)) &&
    a.leadVerb !== null
  ) {
    return judgement(
      5,
      `Draws an explicit boundary (${q(not, 80)}) that routes the excluded case to ${list(a.alternatives)}, and every sibling is accounted for.`,
      'No change needed: keep the boundary sentence with the sibling name.',
    );
  }
  if (when || (not && a.alternatives.length > 0)) {
    const have = when
      ? `Gives clear context for use (${q(when, 80)})`
      : `Routes other cases to ${list(a.alternatives)} (${q(not as string, 80)})`;
    const gap = !when
      ? 'but never says when this tool is the right call'
      : !not
        ? 'but gives no exclusion: when it is the wrong tool and what to call instead'
        : 'but names no sibling as the alternative';
    return judgement(
      4,
      `${have}, ${gap}.`,
      !when
        ? 'Add one sentence saying when to call it, e.g. "Use it after <sibling> returned a <value>".'
        : `Add a when-not sentence that names the alternative, e.g. "Not for <case>; use ${near ?? '<sibling>'} instead".`,
    );
  }
  if (not || a.implied) {
    const ev =
      not ??
      a.units.find(
        (s) =>
          !a.hollowUsage.includes(s.text) &&
          !a.paramAdvice.includes(s.text) &&
          anyMatch(IMPLIED_CUES, s.text),
      )?.text ??
      a.first;
    return judgement(
      3,
      `Usage is only implied (${q(ev, 80)}); there is no explicit statement of when to call it or what to use instead.`,
      'Say explicitly when to use it and when not, naming the sibling tool for the excluded case.',
    );
  }
  const hollow = a.hollowUsage[0];
  return judgement(
    2,
    `The description gives no guidance on when to use the tool or which sibling to prefer${hollow ? `: ${q(hollow, 70)} has the shape of a usage rule but no condition beyond the tool's own name and purpose` : ''}.`,
    `Add "Use it when ..." and "Do not use it for ...; use ${near ?? '<other tool>'} instead".`,
  );
}

function behavioural(a: Analysis, input: ToolJudgeInput): DimensionJudgement {
  if (a.contradiction) {
    return judgement(
      1,
      `The description contradicts the annotations: ${a.contradiction}.`,
      'Make the description and the annotations agree; fix whichever one is wrong.',
    );
  }
  const found = [...a.behaviour.entries()];
  const k = found.length;
  // One quote per claim: kinds earned by the same clause are listed together with it once.
  const byClause = new Map<string, string[]>();
  for (const [key, sentence] of found.slice(0, 3)) {
    const clause = a.behaviourClause.get(key) ?? sentence;
    const label = BEHAVIOUR.find((b) => b.key === key)?.label ?? key;
    byClause.set(clause, [...(byClause.get(clause) ?? []), label]);
  }
  const evidence = [...byClause]
    .map(([clause, labels]) => `${joinAnd(labels)}: ${q(clause, 60)}`)
    .join('; ');
  const missingCats = (['limits', 'errors', 'pagination', 'scope', 'defaults'] as const).filter(
    (c) => !a.behaviour.has(c),
  );
  const suggestion =
    missingCats[0] === 'limits'
      ? 'state the limits (sizes, counts, caps) and what happens past them'
      : missingCats[0] === 'errors'
        ? 'say which inputs are refused and what the error contains'
        : missingCats[0] === 'pagination'
          ? 'say how long results are paged and how to continue'
          : missingCats[0] === 'scope'
            ? 'say what it can reach (roots, index, auth) and what it refuses'
            : 'state the defaults and edge cases (duplicates, empty results)';
  const a11y = input.signals.annotationValues;
  if (a.degenerate || (k === 0 && !a.hintsDeclared && a.wordCount < 5)) {
    return judgement(
      1,
      'No annotations and no behavioural information in the description.',
      'Declare readOnlyHint/destructiveHint/idempotentHint/openWorldHint and describe limits, errors and side effects.',
    );
  }
  let score: number;
  if (a.hintsDeclared) score = k === 0 ? 2 : k === 1 ? 3 : k <= 3 ? 4 : 5;
  else score = k === 0 ? 2 : k <= 2 ? 3 : k <= 4 ? 4 : 5;
  const needsEffects = a11y.destructive === true || a.mutating;
  if (score === 5 && needsEffects && !a.behaviour.has('state')) score = 4;
  const base = a.hintsDeclared
    ? 'Annotations already declare the safety profile, so credit goes to what they cannot say.'
    : 'No annotations are declared, so the description carries the whole disclosure burden.';
  const vague = a.vagueBehaviour[0];
  const vagueNote = vague
    ? ` ${q(vague, 60)} names behaviour without stating it, so it earns nothing.`
    : '';
  if (k === 0) {
    return judgement(
      score,
      `${base} The description adds no limits, errors, side effects or defaults.${vagueNote}`,
      vague
        ? 'Replace the vague sentence with the fact itself: the actual limit, the error and what it contains, the default.'
        : `Add one sentence that would change how an agent calls it: ${suggestion}.`,
    );
  }
  const extra =
    score === 4 && needsEffects && !a.behaviour.has('state') && k >= 4
      ? ' It changes state but never says what it writes or destroys.'
      : '';
  return judgement(
    score,
    `${base} It discloses ${k} kind${k === 1 ? '' : 's'} of behaviour: ${evidence}.${extra}${score < 5 ? vagueNote : ''}`,
    score === 5
      ? 'No change needed: keep the behavioural facts compact.'
      : extra
        ? 'Say exactly what it writes, replaces or deletes, and whether that is atomic or reversible.'
        : `To go further, ${suggestion}.`,
  );
}

function parameterSemantics(a: Analysis, input: ToolJudgeInput): DimensionJudgement {
  const s = input.signals;
  const n = s.paramCount;
  const explained = a.params.filter((p) => p.explained);
  const mentioned = a.params.filter((p) => p.mentioned);
  const redundant = a.params.filter((p) => p.redundant && !p.explained);
  // One quote per sentence: parameters explained by the same sentence are named together.
  const bySentence = new Map<string, string[]>();
  for (const p of explained.slice(0, 2)) {
    const key = p.sentence ?? '';
    bySentence.set(key, [...(bySentence.get(key) ?? []), p.name]);
  }
  const quoted = [...bySentence]
    .map(([sentence, names]) => `${joinAnd(names)} (${q(sentence, 60)})`)
    .join('; ');
  const unexplained = a.params.filter((p) => !p.explained).map((p) => p.name);
  const fixMore = unexplained.length
    ? `Explain ${list(unexplained.slice(0, 2))} in the description: where the value comes from, how it interacts with the others, its default.`
    : 'No change needed.';
  if (n === 0) {
    return judgement(
      4,
      'The tool takes no parameters, so the baseline is 4; there is nothing to explain.',
      'No change needed.',
    );
  }
  const cov = s.schemaDescriptionCoverage;
  const redNote = redundant.length
    ? ` The mention of ${list(redundant.map((p) => p.name))} repeats the schema and earns nothing.`
    : '';
  if (cov > 80) {
    // One documented parameter explained is complete; with more, most of them must be.
    const need = n === 1 ? 1 : Math.max(2, Math.ceil(0.8 * n));
    const score = explained.length >= need ? 5 : explained.length >= 1 ? 4 : 3;
    const body =
      explained.length === 0
        ? `Schema coverage is ${cov}%, so the baseline is 3; the description adds no parameter meaning beyond it.${redNote}`
        : `Schema coverage is ${cov}% (baseline 3); the description adds meaning for ${explained.length} of ${n}: ${quoted}.${redNote}`;
    return judgement(
      score,
      body,
      score === 5
        ? 'No change needed.'
        : explained.length === 0
          ? 'Add what the schema cannot say: where a value comes from (e.g. "as returned by <sibling>") or how two parameters interact.'
          : fixMore,
    );
  }
  if (cov >= 50) {
    const undocumented = a.params.length - s.paramsWithDescriptions;
    const score =
      explained.length >= Math.max(2, Math.ceil(0.8 * n))
        ? 5
        : explained.length >= Math.ceil(undocumented / 2) && explained.length > 0
          ? 4
          : mentioned.length > 0
            ? 3
            : 2;
    return judgement(
      score,
      `Schema coverage is ${cov}%, leaving ${undocumented} parameter${undocumented === 1 ? '' : 's'} undocumented; the description ${explained.length ? `explains ${quoted}` : mentioned.length ? `only names ${list(mentioned.map((p) => p.name))}` : 'does not compensate'}.`,
      `Add a description to every schema property (${list(unexplained.slice(0, 3))}), or explain them in the text.`,
    );
  }
  const credit = explained.length + 0.5 * (mentioned.length - explained.length);
  const f = credit / n;
  const score = f >= 0.9 ? 5 : f >= 0.5 ? 4 : f >= 0.25 ? 3 : f > 0 ? 2 : 1;
  return judgement(
    score,
    `Schema coverage is only ${cov}%, so the description must compensate; it explains ${explained.length} of ${n} parameters${quoted ? `: ${quoted}` : ''}.`,
    `Give every schema property a description (meaning, format, default, range)${unexplained.length ? `, starting with ${list(unexplained.slice(0, 3))}` : ''}.`,
  );
}

function conciseness(a: Analysis): DimensionJudgement {
  if (a.wordCount < 4) {
    return judgement(
      2,
      `${q(a.description)} is under-specified, not concise.`,
      'Write 2-5 sentences: purpose first, then when to use it, then behaviour.',
    );
  }
  const issues: string[] = [];
  let score = 5;
  if (!a.leadVerb) {
    score--;
    issues.push(`it does not open with what the tool does (${q(a.first, 60)})`);
  } else if (words(a.first).length > 40) {
    score--;
    issues.push('the first sentence runs past 40 words');
  }
  if (a.outputFieldsRestated.length >= 3) {
    score--;
    issues.push(`it restates output schema fields (${list(a.outputFieldsRestated.slice(0, 4))})`);
  }
  if (a.fillers.length > 0) {
    score--;
    issues.push(
      `filler (${a.fillers
        .slice(0, 2)
        .map((f) => `"${f}"`)
        .join(', ')})`,
    );
  }
  if (a.wordCount > 120) {
    score -= a.wordCount > 250 ? 2 : 1;
    issues.push(`${a.wordCount} words is long for a tool description`);
  }
  if (a.restatedSchema.length >= 1) {
    score--;
    issues.push(
      `it repeats the schema's defaults or ranges for ${list(a.restatedSchema.slice(0, 3).map((r) => r.name))} (${q(a.restatedSchema[0]?.sentence ?? '', 50)})`,
    );
  }
  const avg = a.wordCount / Math.max(1, a.units.length);
  if (avg > 32) {
    score--;
    issues.push(`sentences average ${Math.round(avg)} words`);
  }
  if (a.keywordLists.length > 0) {
    score -= 2;
    const list0 = a.keywordLists[0] ?? '';
    issues.push(
      !a.leadVerb && list0 === a.first
        ? 'keyword lists instead of sentences, that opening among them'
        : `keyword lists instead of sentences (${q(list0, 50)})`,
    );
  }
  const hollow = [...a.hollowUsage, ...a.vagueBehaviour.filter((v) => !a.hollowUsage.includes(v))];
  if (hollow.length > 0) {
    score--;
    issues.push(
      `${hollow.length === 1 ? 'a sentence states' : `${hollow.length} sentences state`} nothing checkable (${q(hollow[0] ?? '', 50)})`,
    );
  }
  if (a.duplicateSentences > 0) {
    score--;
    issues.push('a sentence is repeated');
  }
  if (a.restatesName) {
    score--;
    issues.push('the first sentence restates the name');
  }
  if (a.units.length === 1 && a.wordCount < 12) {
    score = Math.min(score, 4);
    issues.push('a single short sentence leaves room for the when/behaviour an agent needs');
  }
  score = Math.max(1, Math.min(5, score));
  const shape = `${a.units.length} sentence${a.units.length === 1 ? '' : 's'}, ${a.wordCount} words`;
  if (issues.length === 0) {
    return judgement(
      5,
      `Front-loaded: ${q(a.first, 70)} comes first; ${shape} with no filler${a.restatedSchema.length ? '' : ' and no restated schema'}.`,
      'No change needed.',
    );
  }
  const fix = issues.some((i) => i.startsWith('keyword lists'))
    ? 'Turn each keyword list into a sentence that states the fact (the limit, the error, the default).'
    : issues[0]?.startsWith('it restates output') || issues[0]?.startsWith('it repeats the schema')
      ? issues[0]?.startsWith('it repeats the schema')
        ? 'Drop the defaults and ranges the schema already states; keep what it cannot say.'
        : 'Drop the list of returned fields; the output schema already carries it.'
      : issues[0]?.startsWith('it does not open')
        ? 'Move the purpose sentence (verb + resource) to the front.'
        : issues[0]?.startsWith('filler')
          ? 'Delete the filler words; start with the verb.'
          : / nothing checkable /.test(issues[0] ?? '')
            ? 'Cut sentences that only name a topic ("errors may occur"), or replace each with the fact itself.'
            : issues[0]?.startsWith('a single short')
              ? 'Add one sentence on when to use it and one on behaviour.'
              : 'Cut sentences that repeat the schema or each other; keep each to one fact.';
  return judgement(score, `${shape}; ${issues.join('; ')}.`, fix);
}

function completeness(
  a: Analysis,
  input: ToolJudgeInput,
  dims: Pick<
    Record<Dimension, DimensionJudgement>,
    'purpose_clarity' | 'usage_guidelines' | 'behavioral_transparency' | 'parameter_semantics'
  >,
): DimensionJudgement {
  const s = input.signals;
  if (a.degenerate) {
    return judgement(
      1,
      `Completely inadequate for a ${s.paramCount}-parameter tool: ${q(a.description)}.`,
      'Describe purpose, usage, behaviour and (without an output schema) what it returns.',
    );
  }
  const simple =
    s.paramCount <= 3 && !s.hasNestedObjects && !a.mutating && s.unionChoiceCount === 0;
  const gaps: { what: string; fix: string }[] = [];
  if (dims.purpose_clarity.score < 4)
    gaps.push({ what: 'a clear purpose', fix: 'state the purpose precisely' });
  if (dims.usage_guidelines.score < (simple ? 3 : 4))
    gaps.push({ what: 'when to use it', fix: 'say when to use it and what to use instead' });
  const b = dims.behavioral_transparency.score;
  if (simple ? b < 3 && !a.hintsDeclared : b < 4)
    gaps.push({ what: 'behaviour', fix: 'describe limits, errors and side effects' });
  if (!s.hasOutputSchema && !a.behaviour.has('returns'))
    gaps.push({
      what: 'what it returns (there is no output schema)',
      fix: 'add an output schema, or say in one sentence what a result contains',
    });
  if (!simple && !a.behaviour.has('errors'))
    gaps.push({ what: 'error cases', fix: 'say which inputs fail and what the error contains' });
  if (dims.parameter_semantics.score < 3)
    gaps.push({ what: 'parameter meaning', fix: 'document every parameter' });
  if (a.mutating && !a.hintsDeclared && !a.behaviour.has('state'))
    gaps.push({ what: 'side effects', fix: 'declare annotations and say what it changes' });
  const score = Math.max(1, 5 - gaps.length);
  const context = `For a ${simple ? 'simple' : 'non-trivial'} ${s.paramCount}-parameter ${a.mutating ? 'state-changing' : 'read'} tool${s.hasOutputSchema ? ' with an output schema' : ' without an output schema'}`;
  if (gaps.length === 0) {
    return judgement(
      5,
      `${context}, the description covers purpose, usage, behaviour${s.hasOutputSchema ? '' : ' and returns'}${simple ? '' : ' and errors'}; nothing material is left to guess.`,
      'No change needed.',
    );
  }
  return judgement(
    score,
    `${context}, it leaves out ${list(gaps.map((g) => g.what))}.`,
    `${gaps[0]?.fix ?? ''}.`.replace(/^./, (c) => c.toUpperCase()),
  );
}

const LABEL: Record<Dimension, string> = {
  purpose_clarity: 'purpose',
  usage_guidelines: 'usage guidance',
  behavioral_transparency: 'behavioural disclosure',
  parameter_semantics: 'parameter meaning',
  conciseness_structure: 'structure',
  contextual_completeness: 'completeness',
};

/** The rule judgements of one definition, with the analysis they were read from. */
export function judgeToolRules(input: ToolJudgeInput): {
  analysis: Analysis;
  scores: Record<Dimension, DimensionJudgement>;
} {
  const a = analyze(input);
  const p = purpose(a, input);
  const u = usageGuidelines(a);
  const b = behavioural(a, input);
  const pa = parameterSemantics(a, input);
  const c = conciseness(a);
  const co = completeness(a, input, {
    purpose_clarity: p,
    usage_guidelines: u,
    behavioral_transparency: b,
    parameter_semantics: pa,
  });
  return {
    analysis: a,
    scores: {
      purpose_clarity: p,
      usage_guidelines: u,
      behavioral_transparency: b,
      parameter_semantics: pa,
      conciseness_structure: c,
      contextual_completeness: co,
    },
  };
}

/** The rule scores and the feature vector of one definition (what the fitted models read). */
export function toolFeatures(input: ToolJudgeInput): { x: number[]; rules: RuleScores } {
  const { analysis, scores } = judgeToolRules(input);
  const rules = Object.fromEntries(DIMENSIONS.map((d) => [d, scores[d].score])) as RuleScores;
  return { x: featureVector(analysis, input, rules), rules };
}

/** A concrete fix for a dimension whose calibrated score is below 5 but whose rule said 5. */
function raiseFix(d: Dimension, a: Analysis): string {
  switch (d) {
    case 'purpose_clarity':
      return a.siblings.length
        ? `Say in the first sentence how it differs from ${a.nearestUnnamed ?? a.sameMode() ?? a.siblings[0]}.`
        : 'Make the first sentence name the resource and the scope precisely (which item, by what key).';
    case 'usage_guidelines':
      return 'Add one sentence on when to call it and one on when not, naming the alternative.';
    case 'behavioral_transparency':
      return 'State one more fact an agent cannot see: a limit, what an error contains, or what it changes.';
    case 'parameter_semantics':
      return a.params.length === 0
        ? 'With no parameters, say what one call covers (which items, in what order, how many) so an agent knows no input is needed.'
        : 'Explain where each parameter value comes from and how the parameters interact.';
    case 'conciseness_structure':
      return a.wordCount > 60
        ? `Cut it toward 60 words: ${a.wordCount} words is more than an agent needs to choose the tool.`
        : 'Keep one fact per sentence and put the purpose first.';
    default:
      return 'Cover what is still left to guess: returns, errors, or the side effects.';
  }
}

/**
 * Judges one tool definition deterministically: the rules read the evidence (each justification
 * quotes the sentence that earned or failed the point) and the fitted models turn the evidence
 * into the calibrated score. With `weights` null the rule scores stand.
 */
export function judgeToolOffline(
  input: ToolJudgeInput,
  weights: ModelWeights | null = defaultWeights(),
): ToolJudgement {
  const { analysis: a, scores } = judgeToolRules(input);
  // Degenerate descriptions (two words or fewer) are calibrated too: the rules alone put them at
  // the bottom, the registry a little higher (grouped cross-validation, 2026-12-01).
  if (weights) {
    const rules = Object.fromEntries(DIMENSIONS.map((d) => [d, scores[d].score])) as RuleScores;
    const predicted = predictScores(weights, featureVector(a, input, rules), rules);
    // Length is not conciseness: the registry's 5s are short, so no fitted weight may give a
    // long description full marks.
    const cap = a.wordCount > 300 ? 3 : a.wordCount > 150 ? 4 : 5;
    const capped = predicted.conciseness_structure > cap;
    if (capped) predicted.conciseness_structure = cap;
    for (const d of DIMENSIONS) {
      // A contradiction with the annotations is a hard finding, not a matter of calibration.
      if (d === 'behavioral_transparency' && a.contradiction) continue;
      const j = scores[d];
      const to = predicted[d];
      if (to === j.score) continue;
      const from = j.score;
      j.score = to;
      j.justification =
        d === 'conciseness_structure' && capped
          ? `${j.justification} Capped at ${to}: ${a.wordCount} words is more than an agent needs to choose the tool.`
          : d === 'purpose_clarity' || d === 'usage_guidelines'
            ? `${j.justification} Calibrated to ${to} (the rules alone give ${from}): the registry's pages rarely show this score, and on its published overall scores definitions with this evidence rate ${to > from ? 'higher' : 'lower'}.`
            : `${j.justification} Calibrated to ${to} (the rules alone give ${from}): on the registry's published scores, definitions with this evidence score ${to > from ? 'higher' : 'lower'}.`;
      if (to < 5 && /^No change needed/.test(j.fix ?? '')) j.fix = raiseFix(d, a);
    }
  }
  const entries = Object.entries(scores) as [Dimension, DimensionJudgement][];
  const best = entries.filter(([, j]) => j.score >= 4).map(([d]) => LABEL[d]);
  const worst = [...entries].sort((x, y) => x[1].score - y[1].score)[0];
  const summary =
    worst && worst[1].score < 5
      ? `${best.length ? `Strong on ${list(best.slice(0, 3))}. ` : ''}Weakest on ${LABEL[worst[0]]} (${worst[1].score}/5): ${worst[1].fix}`
      : 'Every dimension is at 5: purpose, usage, behaviour and parameters are all stated with evidence.';
  return { scores, annotationContradiction: a.contradiction !== null, summary };
}

/**
 * The default stage 3 judge: deterministic rules, no network. Scores each TDQS dimension 1–5
 * from evidence in the description and the structured fields, with a justification quoting that
 * evidence and one concrete fix; judges server coherence with deterministic rules too.
 */
export class OfflineJudge implements Judge {
  readonly name: string;
  readonly #weights: ModelWeights | null;

  /**
   * `weights`: the fitted models to apply (default: the committed `calibration/weights.json`);
   * `null` scores with the rules alone.
   */
  constructor(options: { weights?: ModelWeights | null } = {}) {
    this.#weights = options.weights === undefined ? defaultWeights() : options.weights;
    this.name = this.#weights ? 'offline' : 'offline:rules';
  }

  async judgeTool(input: ToolJudgeInput): Promise<ToolJudgement> {
    return judgeToolOffline(input, this.#weights);
  }

  async judgeServer(input: CoherenceJudgeInput): Promise<CoherenceJudgement> {
    return coherenceOffline(input);
  }
}
