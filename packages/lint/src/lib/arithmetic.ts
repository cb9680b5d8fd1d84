import { DIMENSION_WEIGHTS, DIMENSIONS, type DimensionScores, type Tier } from './types.js';

/**
 * `num / den` rounded half-up to an integer, exactly (no floating point). Both must be
 * non-negative integers, `den > 0`.
 */
export function divRoundHalfUp(num: number, den: number): number {
  if (!Number.isSafeInteger(num) || !Number.isSafeInteger(den) || num < 0 || den <= 0) {
    throw new RangeError(`divRoundHalfUp needs integers num >= 0 and den > 0, got ${num}/${den}`);
  }
  return Math.floor((2 * num + den) / (2 * den));
}

/** Tenths (an integer, e.g. 47) as a one-decimal number (4.7). */
export function fromTenths(tenths: number): number {
  return tenths / 10;
}

/** A one-decimal score (4.7) as integer tenths (47); rejects values with more decimals. */
export function toTenths(score: number): number {
  const tenths = Math.round(score * 10);
  if (Math.abs(tenths - score * 10) > 1e-6) {
    throw new RangeError(`${score} is not a one-decimal score`);
  }
  return tenths;
}

function checkScores(scores: DimensionScores): void {
  for (const d of DIMENSIONS) {
    const s = scores[d];
    if (!Number.isInteger(s) || s < 1 || s > 5) {
      throw new RangeError(`${d} must be an integer 1-5, got ${String(s)}`);
    }
  }
}

/** The weighted sum in integer hundredths (100..500): 4,2,2,3,4,2 -> 285. */
export function weightedHundredths(scores: DimensionScores): number {
  checkScores(scores);
  let total = 0;
  for (const d of DIMENSIONS) total += scores[d] * DIMENSION_WEIGHTS[d];
  return total;
}

/**
 * TDQS: the weighted sum of the six dimension scores, computed in integer hundredths and
 * rounded half-up to one decimal. 4,2,2,3,4,2 -> 2.9; 5,5,4,4,5,5 (4.65) -> 4.7;
 * 1,1,1,2,2,2 (1.35) -> 1.4 where binary floating point would give 1.3.
 */
export function computeTdqs(scores: DimensionScores): number {
  return fromTenths(divRoundHalfUp(weightedHundredths(scores), 10));
}

/** The letter tier of a one-decimal score: A >= 3.5, B >= 3.0, C >= 2.0, D >= 1.0, else F. */
export function tierOf(score: number): Tier {
  const t = Math.round(score * 10);
  if (t >= 35) return 'A';
  if (t >= 30) return 'B';
  if (t >= 20) return 'C';
  if (t >= 10) return 'D';
  return 'F';
}

/** Tiers from best to worst. */
export const TIER_ORDER: readonly Tier[] = ['A', 'B', 'C', 'D', 'F'];

/** True when `tier` is at least as good as `min`. */
export function tierAtLeast(tier: Tier, min: Tier): boolean {
  return TIER_ORDER.indexOf(tier) <= TIER_ORDER.indexOf(min);
}

/** Mean of one-decimal scores, rounded half-up to one decimal, exactly. */
export function meanScore(scores: readonly number[]): number {
  if (scores.length === 0) throw new RangeError('mean of no scores');
  const sum = scores.reduce((acc, s) => acc + toTenths(s), 0);
  return fromTenths(divRoundHalfUp(sum, scores.length));
}

/**
 * Server description quality: `round1(0.6 × mean(TDQS) + 0.4 × min(TDQS))`, exactly. With
 * tenths t_i over n tools this is round((6·Σt + 4·n·min) / (10·n)) tenths.
 */
export function descriptionQuality(scores: readonly number[]): number {
  if (scores.length === 0) throw new RangeError('description quality of no scores');
  const tenths = scores.map(toTenths);
  const sum = tenths.reduce((a, b) => a + b, 0);
  const min = Math.min(...tenths);
  const n = tenths.length;
  return fromTenths(divRoundHalfUp(6 * sum + 4 * n * min, 10 * n));
}

/** Coherence: `round1((disambiguation + naming + count + completeness) / 4)`, exactly. */
export function coherenceScore(a: number, b: number, c: number, d: number): number {
  for (const s of [a, b, c, d]) {
    if (!Number.isInteger(s) || s < 1 || s > 5) {
      throw new RangeError(`coherence scores must be integers 1-5, got ${s}`);
    }
  }
  return fromTenths(divRoundHalfUp(10 * (a + b + c + d), 4));
}

/** Overall: `round1(0.7 × quality + 0.3 × coherence)`, exactly. */
export function overallScore(quality: number, coherence: number): number {
  return fromTenths(divRoundHalfUp(7 * toTenths(quality) + 3 * toTenths(coherence), 10));
}
