// The offline judge: the rules' judgements (rules.ts, from the evidence of evidence.ts) and the
// fitted models (model.ts, calibration/weights.json) combined into the calibrated score, with
// the explanations of explain.ts. Changes when the way rules and models combine changes.
import { coherenceOffline } from './coherence.js';
import { calibrationNote, GUARD_NOTE, raiseFix, summaryOf } from './explain.js';
import {
  defaultWeights,
  emptyWords,
  featureVector,
  guarded,
  type ModelWeights,
  predictScores,
  type RuleScores,
} from './model.js';
import { judgeToolRules } from './rules.js';
import {
  type CoherenceJudgeInput,
  type CoherenceJudgement,
  DIMENSIONS,
  type Judge,
  type ToolJudgeInput,
  type ToolJudgement,
} from './types.js';

export { type BehaviourKey, isKeywordList, nearestSibling, statesConcreteFact } from './cues.js';
export { type Analysis, analyze, type ParamEvidence } from './evidence.js';
export { judgeToolRules } from './rules.js';

/**
 * The rule scores and the feature vector of one definition (what the fitted models read), and
 * how empty it is for the tail guard (`emptyWords`).
 */
export function toolFeatures(input: ToolJudgeInput): {
  x: number[];
  rules: RuleScores;
  empty: number;
  emptyNovel: number;
} {
  const { analysis, scores } = judgeToolRules(input);
  const rules = Object.fromEntries(DIMENSIONS.map((d) => [d, scores[d].score])) as RuleScores;
  return {
    x: featureVector(analysis, input, rules),
    rules,
    empty: emptyWords(analysis, input),
    emptyNovel: emptyWords(analysis, input, 'novel'),
  };
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
    // The tail guard: a definition with nothing usable in it is not lifted by calibration.
    const held = guarded(weights, emptyWords(a, input, weights.guard?.basis));
    if (held) for (const d of DIMENSIONS) predicted[d] = Math.min(predicted[d], rules[d]);
    for (const d of DIMENSIONS) {
      // A contradiction with the annotations is a hard finding, not a matter of calibration.
      if (d === 'behavioral_transparency' && a.contradiction) continue;
      const j = scores[d];
      const to = predicted[d];
      if (to === j.score) continue;
      const from = j.score;
      j.score = to;
      j.justification = `${j.justification} ${calibrationNote(d, from, to, capped ? a.wordCount : null)}`;
      if (to < 5 && /^No change needed/.test(j.fix ?? '')) j.fix = raiseFix(d, a);
    }
    if (held) scores.purpose_clarity.justification += ` ${GUARD_NOTE}`;
  }
  return {
    scores,
    annotationContradiction: a.contradiction !== null,
    summary: summaryOf(scores),
  };
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
