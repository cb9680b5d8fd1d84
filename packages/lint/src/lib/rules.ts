// The rules: one function per TDQS dimension turns the evidence into a 1-5 score with a
// justification quoting it and one concrete fix. Changes when a rubric rule changes.

import { anyMatch, BEHAVIOUR, IMPLIED_CUES } from './cues.js';
import { type Analysis, analyze } from './evidence.js';
import { contentTokens, cue, excerpt, joinAnd, words } from './text.js';
import type { Dimension, DimensionJudgement, ToolJudgeInput } from './types.js';

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
