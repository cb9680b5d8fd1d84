import { describe, expect, it } from 'vitest';
import {
  coherenceScore,
  computeTdqs,
  descriptionQuality,
  divRoundHalfUp,
  meanScore,
  overallScore,
  tierAtLeast,
  tierOf,
  toTenths,
  weightedHundredths,
} from './arithmetic.js';
import type { DimensionScores } from './types.js';

const s = (...v: number[]): DimensionScores => ({
  purpose_clarity: v[0]!,
  usage_guidelines: v[1]!,
  behavioral_transparency: v[2]!,
  parameter_semantics: v[3]!,
  conciseness_structure: v[4]!,
  contextual_completeness: v[5]!,
});

describe('TDQS arithmetic', () => {
  it('rounds half up exactly where binary floating point would not', () => {
    expect(computeTdqs(s(5, 5, 4, 4, 5, 5))).toBe(4.7); // 4.65
    expect(computeTdqs(s(1, 1, 1, 2, 2, 2))).toBe(1.4); // 1.35; floats give 1.3
    const floaty = 1 * 0.25 + 1 * 0.2 + 1 * 0.2 + 2 * 0.15 + 2 * 0.1 + 2 * 0.1;
    expect(Math.round(floaty * 10) / 10).toBe(1.3);
  });

  it('reproduces the worked example and the published seed scores', () => {
    expect(weightedHundredths(s(4, 2, 2, 3, 4, 2))).toBe(285);
    expect(computeTdqs(s(4, 2, 2, 3, 4, 2))).toBe(2.9);
    expect(computeTdqs(s(5, 5, 5, 4, 4, 5))).toBe(4.8);
    expect(computeTdqs(s(5, 4, 5, 4, 4, 5))).toBe(4.6);
    expect(computeTdqs(s(4, 4, 3, 3, 5, 5))).toBe(3.9);
    expect(computeTdqs(s(1, 1, 1, 1, 1, 1))).toBe(1);
    expect(computeTdqs(s(5, 5, 5, 5, 5, 5))).toBe(5);
  });

  it('refuses scores outside 1-5 or non-integers', () => {
    expect(() => computeTdqs(s(0, 1, 1, 1, 1, 1))).toThrow(
      /purpose_clarity must be an integer 1-5/,
    );
    expect(() => computeTdqs(s(1, 1, 1, 1, 1, 4.5))).toThrow(/contextual_completeness/);
    expect(() => divRoundHalfUp(1, 0)).toThrow(RangeError);
    expect(() => toTenths(4.65)).toThrow(/one-decimal/);
  });

  it('maps scores to tiers at the published boundaries', () => {
    expect([3.5, 3.4, 3.0, 2.9, 2.0, 1.9, 1.0, 0.9].map(tierOf)).toEqual([
      'A',
      'B',
      'B',
      'C',
      'C',
      'D',
      'D',
      'F',
    ]);
    expect(tierAtLeast('A', 'B')).toBe(true);
    expect(tierAtLeast('C', 'B')).toBe(false);
  });

  it('rolls a server up as round1(0.6·mean + 0.4·min), exactly', () => {
    // mean 3.4, min 2.1 -> 0.6*3.4 + 0.4*2.1 = 2.88 -> 2.9
    expect(descriptionQuality([2.1, 3.4, 4.7])).toBe(2.9);
    // 0.6*4.45 + 0.4*4.2 = 4.35 exactly -> 4.4 (half up)
    expect(descriptionQuality([4.2, 4.7])).toBe(4.4);
    expect(meanScore([4.7, 4.8])).toBe(4.8); // 4.75 -> 4.8
    expect(coherenceScore(4, 5, 5, 4)).toBe(4.5);
    expect(coherenceScore(5, 5, 5, 4)).toBe(4.8); // 4.75
    expect(overallScore(2.9, 4.5)).toBe(3.4); // 2.03 + 1.35 = 3.38
    expect(overallScore(4.5, 4.5)).toBe(4.5);
    expect(() => coherenceScore(6, 5, 5, 5)).toThrow(RangeError);
  });
});
