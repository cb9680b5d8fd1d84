import { readFileSync } from 'node:fs';
import type { Analysis } from './evidence.js';
import { NOVELTY_FEATURES, noveltyFeatures, novelWords } from './novelty.js';
import { topLevelParams } from './signals.js';
import { words } from './text.js';
import { DIMENSION_WEIGHTS, DIMENSIONS, type Dimension, type ToolJudgeInput } from './types.js';

/**
 * The fitted part of the offline judge. The rules read evidence from a definition and give each
 * dimension a rule score; this module turns that evidence into deterministic numeric features
 * and applies per-dimension models fitted on the development part of the registry calibration
 * corpus (`calibration/registry.jsonl`, refit with `pnpm --filter @lectern/lint calibrate:fit`):
 *
 * - `linear`: an ordinal model, a linear score over standardized features cut into 1-5 by four
 *   fitted thresholds (ridge regression for the weights, thresholds chosen to minimize the
 *   absolute error), for the dimensions the pages show (behaviour, parameters, conciseness,
 *   completeness); features left out by cross-validation weigh 0;
 * - `map`: a monotone map of the rule score (the identity keeps the rules' score);
 * - the `hidden` model: the part of the overall score the pages almost never show (purpose and
 *   usage, 45% of the TDQS), a linear score fitted to what the published TDQS leaves once the
 *   other four dimensions are predicted, then split into the two integer scores nearest to it
 *   that stay closest to the rules' own purpose and usage scores.
 */

/**
 * Features read from the description text and the raw schema alone (added in the refit on the
 * whole corpus, 2026-12-01): a finer length curve, sentence roles (returns, usage, parameters),
 * restated defaults, ranges and numbers, identifiers in code form, list lines, examples.
 */
const DESCRIPTION_FEATURES = [
  'words_linear',
  'log_words_squared',
  'over_40_words',
  'over_80_words',
  'over_130_words',
  'returns_share_with_output_schema',
  'returns_share',
  'usage_share',
  'parameter_share',
  'defaults_named',
  'ranges_named',
  'parameter_names_in_text',
  'words_per_parameter',
  'code_tokens',
  'list_lines',
  'example',
  'numbers',
] as const;

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
  'non_latin',
  'param_description_words',
  'line_breaks',
  'mentions_price',
  'has_title',
  'log_required',
  'params_well_described',
  'at_most_3_words',
  'at_most_6_words',
  'at_most_10_words',
  'params_none_described',
  'short_no_annotations',
  'short_many_params',
  ...DESCRIPTION_FEATURES,
  ...NOVELTY_FEATURES,
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
  const tool = input.tool;
  const raw = tool.description ?? '';
  let letters = 0;
  let latin = 0;
  for (const m of raw.matchAll(/\p{L}/gu)) {
    letters++;
    if (/[A-Za-z\u00C0-\u024F]/.test(m[0])) latin++;
  }
  const paramWords = topLevelParams(tool.inputSchema).map(([, p]) =>
    typeof p.description === 'string' ? words(p.description).length : 0,
  );
  const avgParamWords = paramWords.length
    ? paramWords.reduce((x, y) => x + y, 0) / paramWords.length
    : 0;
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
    letters ? 1 - latin / letters : 0,
    Math.log1p(avgParamWords),
    Math.min((raw.match(/\n/g) ?? []).length, 20) / 10,
    b(PRICE.test(raw)),
    b(typeof tool.title === 'string' && tool.title.trim() !== ''),
    Math.log1p(s.requiredParamCount),
    paramWords.length ? paramWords.filter((n) => n >= 6).length / paramWords.length : 0,
    // Very short descriptions: the registry reads them as under-specified, not concise (its
    // tier D is mostly these), so length enters on both sides, not only as "long".
    b(wc <= 3),
    b(wc <= 6),
    b(wc <= 10),
    b(s.paramCount > 0 && s.paramsWithDescriptions === 0),
    b(wc <= 10 && !a.hintsDeclared),
    b(wc <= 10 && s.paramCount >= 3),
    ...descriptionFeatures(tool),
    ...noveltyFeatures(tool, wc, params, a.params.filter((p) => p.mentioned).length),
  ];
}

/** Word-like runs, for the description features (kept apart from `words` so they never move). */
const WORD_RUN = /[\p{L}\p{N}][\p{L}\p{N}'_.-]*/gu;
const countWords = (text: string) => (text.match(WORD_RUN) ?? []).length;
const RETURNS_ROLE = /\b(returns?|outputs?|responds?|response|result)\b/i;
const USAGE_ROLE = /\b(use|call|prefer|instead|when|before|after|avoid)\b/i;
const DEFAULT_WORD = /\bdefaults?\b|\bdefault:/gi;
const RANGE = /\b\d+\s*(-|–|to)\s*\d+\b|\bmax(imum)?\b|\bmin(imum)?\b|\bup to \d+/gi;
const CODE_TOKEN = /`[^`]+`|\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z][a-zA-Z]+\b/g;
const LIST_LINE = /^\s*([-*•]|\d+\.)\s/gm;
const EXAMPLE = /\b(e\.g\.|example|for instance)\b/i;

/** The {@link DESCRIPTION_FEATURES} of one definition, in order. */
function descriptionFeatures(tool: ToolJudgeInput['tool']): number[] {
  const d = tool.description ?? '';
  const wc = countWords(d);
  const props = tool.inputSchema?.properties;
  const names = props && typeof props === 'object' ? Object.keys(props) : [];
  const named = names.filter((n) => n.length > 2);
  const sentences = d
    .split(/(?<=[.!?])\s+|\n+/)
    .map((x) => x.trim())
    .filter((x) => countWords(x) > 0);
  const ns = Math.max(1, sentences.length);
  const share = (re: RegExp) => sentences.filter((x) => re.test(x)).length / ns;
  const returnsShare = share(RETURNS_ROLE);
  const count = (re: RegExp) => (d.match(re) ?? []).length;
  return [
    Math.min(wc, 250) / 100,
    (Math.log1p(wc) / 3) ** 2,
    b(wc > 40),
    b(wc > 80),
    b(wc > 130),
    tool.outputSchema ? returnsShare : 0,
    returnsShare,
    share(USAGE_ROLE),
    names.length ? sentences.filter((x) => named.some((n) => x.includes(n))).length / ns : 0,
    Math.min(count(DEFAULT_WORD), 4) / 4,
    Math.min(count(RANGE), 4) / 4,
    Math.min(named.filter((n) => d.includes(n)).length, 6) / 6,
    Math.log1p(wc / (names.length + 1)),
    Math.min(count(CODE_TOKEN), 10) / 10,
    Math.min(count(LIST_LINE), 10) / 10,
    b(EXAMPLE.test(d)),
    Math.min(count(/\d+/g), 10) / 10,
  ];
}

/** A price or payment in a description ("$0.01 per call", "paid over x402", "USDC"). */
const PRICE = /\$\d|\bUSDC\b|\bx402\b|\bpaid\b|\bprice\b|\bcosts?\b/i;

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

/**
 * The hidden part of the overall score: purpose and usage, which the registry's pages almost
 * never show, fitted on the published TDQS. `linearScore` gives their weighted mean on the 1-5
 * scale; `split` turns it into two integer scores.
 */
export interface HiddenModel {
  kind: 'hidden';
  dimensions: ['purpose_clarity', 'usage_guidelines'];
  weights: number[];
  bias: number;
  lambda: number;
  /** Cost, in TDQS points, of moving a score one step away from its rule score. */
  prior: number;
  n: number;
}

/** The committed weights file (`calibration/weights.json`). */
export interface ModelWeights {
  version: 2;
  fitted: { corpus: string; split: string; examples: number; date: string };
  features: string[];
  mean: number[];
  sd: number[];
  dimensions: Partial<Record<Dimension, LinearDimensionModel | MapDimensionModel>>;
  hidden?: HiddenModel;
  /**
   * The tail guard: a definition with no usable content (see {@link emptyWords}) of at most
   * `maxWords` words keeps its rule scores wherever a model would raise them, so calibration
   * never lifts it out of the bottom tier. `maxWords` is chosen by cross-validation; absent or
   * negative, no guard.
   */
  guard?: { maxWords: number; basis?: 'words' | 'novel' };
}

/**
 * How empty a definition is, for the tail guard: when nothing gives a parameter meaning (no
 * parameter explained in the description, and the schema describes fewer than half of them, or
 * there are none), its description's word count, or 0 when it only restates the name or title;
 * otherwise Infinity (the definition has usable content, whatever its length). With `basis`
 * 'novel', the count is of the words that say something the name does not ({@link novelWords}).
 */
export function emptyWords(
  a: Analysis,
  input: ToolJudgeInput,
  basis: 'words' | 'novel' = 'words',
): number {
  const s = input.signals;
  const paramMeaning =
    a.params.some((p) => p.explained) || (s.paramCount > 0 && s.schemaDescriptionCoverage >= 50);
  if (paramMeaning) return Number.POSITIVE_INFINITY;
  if (a.restatesName) return 0;
  return basis === 'novel' ? novelWords(input.tool) : a.wordCount;
}

/** Whether the weights' tail guard holds the rule scores of a definition `emptyWords` empty. */
export function guarded(weights: Pick<ModelWeights, 'guard'>, empty: number): boolean {
  const g = weights.guard;
  return g !== undefined && g.maxWords >= 0 && empty <= g.maxWords;
}

/** The linear score of a standardized feature vector. */
export function linearScore(
  model: Pick<LinearDimensionModel, 'weights' | 'bias'>,
  z: readonly number[],
): number {
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

/**
 * Splits the hidden part (the weighted mean `h` of purpose and usage on the 1-5 scale) into two
 * integer scores that move from the rule scores together: both up or both down (never one up
 * and one down), and by steps that differ by at most one unless the one that moves less is
 * already at 1 or 5. Among those pairs it takes the one whose weighted sum is nearest to `h`,
 * each step away from the rule scores costing `prior` TDQS points (so near ties keep the rules'
 * own reading). Deterministic: exact ties keep the first pair in (purpose, usage) order.
 */
export function splitHidden(
  h: number,
  rulePurpose: number,
  ruleUsage: number,
  prior: number,
): { purpose_clarity: number; usage_guidelines: number } {
  const wq = DIMENSION_WEIGHTS.purpose_clarity / 100;
  const wu = DIMENSION_WEIGHTS.usage_guidelines / 100;
  const target = (wq + wu) * h;
  let best = { purpose_clarity: rulePurpose, usage_guidelines: ruleUsage };
  let bestCost = Number.POSITIVE_INFINITY;
  for (let q = 1; q <= 5; q++) {
    for (let u = 1; u <= 5; u++) {
      const dq = q - rulePurpose;
      const du = u - ruleUsage;
      if (dq * du < 0) continue;
      if (Math.abs(dq - du) > 1) {
        // The smaller mover may lag only when it cannot move further.
        const lagging = Math.abs(dq) < Math.abs(du) ? q : u;
        const up = dq + du > 0;
        if (lagging !== (up ? 5 : 1)) continue;
      }
      const cost = Math.abs(wq * q + wu * u - target) + prior * (Math.abs(dq) + Math.abs(du));
      if (cost < bestCost - 1e-12) {
        bestCost = cost;
        best = { purpose_clarity: q, usage_guidelines: u };
      }
    }
  }
  return best;
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
  const h = weights.hidden;
  if (h) {
    Object.assign(
      out,
      splitHidden(linearScore(h, z), rules.purpose_clarity, rules.usage_guidelines, h.prior),
    );
  }
  return out;
}

/** Checks the shape of a weights object; throws naming what is wrong. */
export function checkWeights(w: unknown): ModelWeights {
  const o = w as ModelWeights;
  if (o?.version !== 2) throw new Error('weights: version must be 2; refit');
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
  if (
    o.guard !== undefined &&
    !(
      typeof o.guard === 'object' &&
      o.guard !== null &&
      Number.isInteger(o.guard.maxWords) &&
      (o.guard.basis === undefined || o.guard.basis === 'words' || o.guard.basis === 'novel')
    )
  ) {
    throw new Error(
      "weights: guard needs a whole number maxWords and a basis of 'words' or 'novel'",
    );
  }
  const h = o.hidden;
  if (h !== undefined) {
    if (
      h.kind !== 'hidden' ||
      h.weights.length !== FEATURE_NAMES.length ||
      !(h.prior >= 0) ||
      o.dimensions.purpose_clarity !== undefined ||
      o.dimensions.usage_guidelines !== undefined
    ) {
      throw new Error(
        'weights: hidden needs one weight per feature and a prior >= 0, and replaces the purpose and usage models',
      );
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
