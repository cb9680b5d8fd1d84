import { readFileSync } from 'node:fs';
import type { Analysis } from './offline-judge.js';
import { words } from './text.js';
import { DIMENSIONS, type Dimension, type ToolJudgeInput } from './types.js';

/**
 * The fitted part of the offline judge. The rules read evidence from a definition and give each
 * dimension a rule score; this module turns that evidence into deterministic numeric features
 * and applies per-dimension models fitted on the development part of the registry calibration
 * corpus (`calibration/registry.jsonl`, refit with `pnpm --filter @lectern/lint calibrate:fit`):
 *
 * - `linear`: an ordinal model, a linear score over standardized features cut into 1-5 by four
 *   fitted thresholds (ridge regression for the weights, thresholds chosen to minimize the
 *   absolute error);
 * - `map`: a monotone map of the rule score, for dimensions the registry pages rarely show
 *   (purpose and usage), fitted against the published overall scores.
 */

/** Feature names, in vector order. */
export const FEATURE_NAMES = [
  'rule_purpose',
  'rule_usage',
  'rule_behaviour',
  'rule_parameters',
  'rule_conciseness',
  'rule_completeness',
  'log_words',
  'sentences',
  'avg_sentence_words',
  'first_sentence_words',
  'over_60_words',
  'over_100_words',
  'over_170_words',
  'lead_verb',
  'restates_name',
  'degenerate',
  'annotations_declared',
  'read_only',
  'destructive',
  'mutating',
  'contradiction',
  'output_schema',
  'log_params',
  'no_params',
  'schema_coverage',
  'params_explained',
  'params_mentioned',
  'behaviour_kinds',
  'limits',
  'pagination',
  'errors',
  'state',
  'scope',
  'defaults',
  'versioning',
  'returns',
  'stated_effects',
  'vague_behaviour',
  'hollow_usage',
  'keyword_lists',
  'filler',
  'duplicates',
  'when',
  'when_not',
  'siblings_named',
  'alternatives',
  'has_siblings',
  'restated_schema',
  'restated_output',
  'parameter_advice',
  'labels',
  'meaningful_title',
] as const;

/** A rule score per dimension. */
export type RuleScores = Record<Dimension, number>;

const b = (x: boolean) => (x ? 1 : 0);

/** The feature vector of one analysed definition, in {@link FEATURE_NAMES} order. */
export function featureVector(a: Analysis, input: ToolJudgeInput, rules: RuleScores): number[] {
  const s = input.signals;
  const wc = a.wordCount;
  const n = Math.max(1, a.units.length);
  const params = a.params.length;
  const k = a.behaviour.size;
  return [
    rules.purpose_clarity,
    rules.usage_guidelines,
    rules.behavioral_transparency,
    rules.parameter_semantics,
    rules.conciseness_structure,
    rules.contextual_completeness,
    Math.log1p(wc),
    Math.min(a.units.length, 12) / 4,
    Math.min(wc / n, 60) / 10,
    Math.min(words(a.first).length, 60) / 10,
    b(wc > 60),
    b(wc > 100),
    b(wc > 170),
    b(a.leadVerb !== null),
    b(a.restatesName),
    b(a.degenerate),
    b(a.hintsDeclared),
    b(s.annotationValues.readOnly === true),
    b(s.annotationValues.destructive === true),
    b(a.mutating),
    b(a.contradiction !== null),
    b(s.hasOutputSchema),
    Math.log1p(params),
    b(params === 0),
    s.schemaDescriptionCoverage / 100,
    params ? a.params.filter((p) => p.explained).length / params : 0,
    params ? a.params.filter((p) => p.mentioned).length / params : 0,
    Math.min(k, 6) / 3,
    b(a.behaviour.has('limits')),
    b(a.behaviour.has('pagination')),
    b(a.behaviour.has('errors')),
    b(a.behaviour.has('state')),
    b(a.behaviour.has('scope')),
    b(a.behaviour.has('defaults')),
    b(a.behaviour.has('versioning')),
    b(a.behaviour.has('returns')),
    Math.min(a.effects.length, 3) / 3,
    b(a.vagueBehaviour.length > 0),
    b(a.hollowUsage.length > 0),
    b(a.keywordLists.length > 0),
    b(a.fillers.length > 0),
    b(a.duplicateSentences > 0),
    b(a.whenSentences.length > 0),
    b(a.notSentences.length > 0),
    Math.min(a.siblingsNamed.length, 3) / 3,
    b(a.alternatives.length > 0),
    b(a.siblings.length > 0),
    Math.min(a.restatedSchema.length, 3) / 3,
    Math.min(a.outputFieldsRestated.length, 5) / 5,
    b(a.paramAdvice.length > 0),
    b(a.labels > 0),
    b(s.titleIsMeaningful),
  ];
}

/** An ordinal linear model for one dimension. */
export interface LinearDimensionModel {
  kind: 'linear';
  /** One weight per feature, on standardized features. */
  weights: number[];
  bias: number;
  /** Four increasing thresholds: score = 1 + how many the linear score exceeds. */
  cuts: [number, number, number, number];
  lambda: number;
  /** Examples it was fitted on. */
  n: number;
}

/** A monotone map of the rule score (index 0 is rule score 1). */
export interface MapDimensionModel {
  kind: 'map';
  map: [number, number, number, number, number];
  /** Examples it was fitted on (with a published TDQS or this dimension). */
  n: number;
}

/** The committed weights file (`calibration/weights.json`). */
export interface ModelWeights {
  version: 1;
  fitted: { corpus: string; split: string; examples: number; date: string };
  features: string[];
  mean: number[];
  sd: number[];
  dimensions: Partial<Record<Dimension, LinearDimensionModel | MapDimensionModel>>;
}

/** The linear score of a standardized feature vector. */
export function linearScore(model: LinearDimensionModel, z: readonly number[]): number {
  let t = model.bias;
  for (let i = 0; i < model.weights.length; i++) t += (model.weights[i] ?? 0) * (z[i] ?? 0);
  return t;
}

/** Cuts a linear score into 1-5. */
export function cutScore(t: number, cuts: readonly number[]): number {
  let s = 1;
  for (const c of cuts) if (t > c) s++;
  return s;
}

/** Standardizes a feature vector with the weights' means and deviations. */
export function standardize(x: readonly number[], w: Pick<ModelWeights, 'mean' | 'sd'>): number[] {
  return x.map((v, i) => (v - (w.mean[i] ?? 0)) / (w.sd[i] || 1));
}

/** Applies the fitted models; dimensions without a model keep their rule score. */
export function predictScores(
  weights: ModelWeights,
  x: readonly number[],
  rules: RuleScores,
): RuleScores {
  const z = standardize(x, weights);
  const out = { ...rules };
  for (const d of DIMENSIONS) {
    const m = weights.dimensions[d];
    if (!m) continue;
    if (m.kind === 'linear') out[d] = cutScore(linearScore(m, z), m.cuts);
    else out[d] = m.map[rules[d] - 1] ?? rules[d];
  }
  return out;
}

/** Checks the shape of a weights object; throws naming what is wrong. */
export function checkWeights(w: unknown): ModelWeights {
  const o = w as ModelWeights;
  if (o?.version !== 1) throw new Error('weights: version must be 1');
  if (JSON.stringify(o.features) !== JSON.stringify(FEATURE_NAMES)) {
    throw new Error('weights: the feature list does not match this version of the judge; refit');
  }
  if (o.mean.length !== FEATURE_NAMES.length || o.sd.length !== FEATURE_NAMES.length) {
    throw new Error('weights: mean and sd need one entry per feature');
  }
  for (const [d, m] of Object.entries(o.dimensions)) {
    if (!m) continue;
    if (m.kind === 'linear' && (m.weights.length !== FEATURE_NAMES.length || m.cuts.length !== 4)) {
      throw new Error(`weights: ${d} needs one weight per feature and four cuts`);
    }
    if (m.kind === 'map' && (m.map.length !== 5 || m.map.some((v) => v < 1 || v > 5))) {
      throw new Error(`weights: ${d} map needs five scores 1-5`);
    }
  }
  return o;
}

let cached: ModelWeights | null | undefined;

/**
 * The committed weights (`calibration/weights.json` beside the package), read once. Null when
 * the file is absent, so the judge falls back to its rules.
 */
export function defaultWeights(): ModelWeights | null {
  if (cached !== undefined) return cached;
  try {
    const text = readFileSync(new URL('../../calibration/weights.json', import.meta.url), 'utf8');
    cached = checkWeights(JSON.parse(text));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    cached = null;
  }
  return cached;
}
