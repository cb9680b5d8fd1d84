// Reads one definition sentence by sentence into the evidence the rules score from
// (`Analysis`). Changes when the judge reads something new from a definition.

import {
  anyMatch,
  BEHAVIOUR,
  type BehaviourKey,
  codeLike,
  DESTRUCTIVE_CLAIM,
  EFFECT,
  FILLER,
  GENERIC,
  IMPLIED_CUES,
  isKeywordList,
  leadVerbOf,
  NEGATED_WRITE,
  nameWrites,
  nearestSibling,
  PARAM_ADVICE,
  PARAM_CUES,
  paramMentioned,
  READ_ONLY_CLAIM,
  routesTo,
  startsWithParam,
  statesConcreteFact,
  USAGE_VOCABULARY,
  WHEN_CUES,
  WHEN_NOT_CUES,
} from './cues.js';
import { topLevelParams } from './signals.js';
import {
  clauseAt,
  contentTokens,
  escapeRegExp,
  isMutationVerb,
  isTokenName,
  mentions,
  nameWords,
  type Sentence,
  STOPWORDS,
  sentences,
  tokens,
  words,
} from './text.js';
import type { ToolJudgeInput } from './types.js';

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
