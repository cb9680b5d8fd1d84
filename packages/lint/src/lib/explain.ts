// What the offline judge says about scores: the fix for a rule 5 that calibration lowered,
// and the dimension labels of the one-line summary. Changes with the wording only.

import type { Analysis } from './evidence.js';
import type { Dimension, DimensionJudgement } from './types.js';

const LABEL: Record<Dimension, string> = {
  purpose_clarity: 'purpose',
  usage_guidelines: 'usage guidance',
  behavioral_transparency: 'behavioural disclosure',
  parameter_semantics: 'parameter meaning',
  conciseness_structure: 'structure',
  contextual_completeness: 'completeness',
};

/** A concrete fix for a dimension whose calibrated score is below 5 but whose rule said 5. */
export function raiseFix(d: Dimension, a: Analysis): string {
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
 * What a justification adds when a fitted model moved the rule score `from` to `to`;
 * `cappedWords` is the word count when the length cap on conciseness set the score.
 */
export function calibrationNote(
  d: Dimension,
  from: number,
  to: number,
  cappedWords: number | null,
): string {
  if (d === 'conciseness_structure' && cappedWords !== null)
    return `Capped at ${to}: ${cappedWords} words is more than an agent needs to choose the tool.`;
  const way = to > from ? 'higher' : 'lower';
  return d === 'purpose_clarity' || d === 'usage_guidelines'
    ? `Calibrated to ${to} (the rules alone give ${from}): the registry's pages rarely show this score, and on its published overall scores definitions with this evidence rate ${way}.`
    : `Calibrated to ${to} (the rules alone give ${from}): on the registry's published scores, definitions with this evidence score ${way}.`;
}

/** The one-line summary: the strongest dimensions, then the weakest with its fix. */
export function summaryOf(scores: Record<Dimension, DimensionJudgement>): string {
  const entries = Object.entries(scores) as [Dimension, DimensionJudgement][];
  const best = entries.filter(([, j]) => j.score >= 4).map(([d]) => LABEL[d]);
  const worst = [...entries].sort((x, y) => x[1].score - y[1].score)[0];
  return worst && worst[1].score < 5
    ? `${best.length ? `Strong on ${best.slice(0, 3).join(', ')}. ` : ''}Weakest on ${LABEL[worst[0]]} (${worst[1].score}/5): ${worst[1].fix}`
    : 'Every dimension is at 5: purpose, usage, behaviour and parameters are all stated with evidence.';
}

/** Said on purpose when the tail guard kept the rule scores of an empty definition. */
export const GUARD_NOTE =
  "Not calibrated upward: the definition has no usable content (a handful of words or the name restated, and no parameter meaning), so it keeps the rules' scores.";
