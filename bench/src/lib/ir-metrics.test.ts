// The relevance measures against values worked out by hand (log2 3 = 1.5849625,
// log2 5 = 2.3219281), so the scenario's nDCG@10 is trec_eval's ndcg_cut.10 with linear gains.
import { describe, expect, it } from 'vitest';
import {
  dcgAt,
  evaluate,
  idealDcgAt,
  meanOverlap,
  ndcgAt,
  overlapAt,
  recallAt,
  splits,
  uniqueDocs,
} from './ir-metrics.mjs';

// Graded gains with a tie (a and c are both 3) and a judged-but-not-relevant document (z: 0).
const judged = { a: 3, b: 2, c: 3, d: 1, z: 0 };

describe('dcgAt / idealDcgAt / ndcgAt (linear gains, trec_eval ndcg_cut)', () => {
  it('sums gain / log2(rank + 1) over the ranked list, unjudged documents gaining 0', () => {
    // b at rank 1: 2/1; x unjudged; a at rank 3: 3/log2 4 = 1.5; d at rank 4: 1/log2 5.
    expect(dcgAt(['b', 'x', 'a', 'd'], judged, 10)).toBeCloseTo(2 + 1.5 + 1 / 2.3219281, 6);
    expect(dcgAt(['b', 'x', 'a', 'd'], judged, 10)).toBeCloseTo(3.9306766, 6);
  });

  it('builds the ideal from the judged gains, highest first, ties in any order', () => {
    // 3, 3, 2, 1 at ranks 1-4: 3 + 3/log2 3 + 2/2 + 1/log2 5.
    expect(idealDcgAt(judged, 10)).toBeCloseTo(6.3234658, 6);
    expect(ndcgAt(['b', 'x', 'a', 'd'], judged, 10)).toBeCloseTo(0.6216016, 6);
  });

  it('gives 1 to any ideal order, whichever of the tied documents comes first', () => {
    expect(ndcgAt(['a', 'c', 'b', 'd'], judged, 10)).toBeCloseTo(1, 12);
    expect(ndcgAt(['c', 'a', 'b', 'd', 'z', 'x'], judged, 10)).toBeCloseTo(1, 12);
  });

  it('weighs a higher gain more: the better note first beats the lesser one first', () => {
    const graded = { p: 4, q: 1 };
    // q then p: (1 + 4/log2 3) / (4 + 1/log2 3).
    expect(ndcgAt(['q', 'p'], graded, 10)).toBeCloseTo(0.7609096, 6);
    expect(ndcgAt(['p', 'q'], graded, 10)).toBeCloseTo(1, 12);
  });

  it('cuts both the run and the ideal at k', () => {
    // Twelve relevant documents of gain 1: the ideal is the first ten ranks, Σ 1/log2(r+1).
    const many = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`r${i}`, 1]));
    expect(idealDcgAt(many, 10)).toBeCloseTo(4.5435593, 6);
    const ranked = ['r0', ...Array.from({ length: 9 }, (_, i) => `n${i}`), 'r1', 'r2'];
    // Only r0 (rank 1) is inside the cut; r1 and r2 at ranks 11 and 12 gain nothing.
    expect(ndcgAt(ranked, many, 10)).toBeCloseTo(1 / 4.5435593, 6);
  });

  it('counts a document cited twice once, at its first rank', () => {
    expect(uniqueDocs(['a', 'a', 'b', 'a'])).toEqual(['a', 'b']);
    expect(dcgAt(['a', 'a', 'b'], judged, 10)).toBeCloseTo(3 + 2 / 1.5849625, 6);
  });

  it('is 0 for an empty list and for a question with no relevant document', () => {
    expect(ndcgAt([], judged, 10)).toBe(0);
    expect(ndcgAt(['z'], { z: 0 }, 10)).toBe(0);
  });
});

describe('recallAt', () => {
  it('is the share of relevant documents (gain > 0) within the first k', () => {
    // Four relevant (a, b, c, d); z has gain 0 and is not relevant.
    expect(recallAt(['b', 'x', 'a', 'd', 'z'], judged, 10)).toBe(3 / 4);
    expect(recallAt(['b', 'x', 'a', 'd'], judged, 2)).toBe(1 / 4);
    expect(recallAt(['a', 'a', 'a'], judged, 100)).toBe(1 / 4);
    expect(recallAt(['x'], { z: 0 }, 10)).toBe(0);
  });
});

describe('overlapAt', () => {
  it('is |top-k of a ∩ top-k of b| / k, whatever the order and length', () => {
    expect(overlapAt(['a', 'b', 'c'], ['c', 'b', 'a'], 10)).toBeCloseTo(0.3, 12);
    expect(overlapAt(['a', 'b', 'c'], ['c', 'd'], 2)).toBe(0);
    const ten = Array.from({ length: 10 }, (_, i) => `d${i}`);
    expect(overlapAt(ten, [...ten].reverse(), 10)).toBe(1);
  });
});

describe('splits', () => {
  it('puts even 0-based positions in dev and odd ones in test', () => {
    const qs = ['1', '2', '4', '8', '9'].map((id) => ({ id }));
    expect(splits(qs)).toEqual({
      all: ['1', '2', '4', '8', '9'],
      dev: ['1', '4', '9'],
      test: ['2', '8'],
    });
  });
});

describe('evaluate / meanOverlap', () => {
  const qrels = { q1: { a: 2, b: 1 }, q2: { c: 1 } };

  it('averages over every question, a refused one scoring 0 and counted', () => {
    const runs = new Map<string, string[] | null>([
      ['q1', ['a', 'b']],
      ['q2', null],
    ]);
    expect(evaluate(['q1', 'q2'], runs, qrels)).toEqual({
      n: 2,
      ndcg10: 0.5,
      recall10: 0.5,
      recall100: 0.5,
      refused: 1,
    });
  });

  it('fails loudly on a question that was not run or has no judgments', () => {
    expect(() => evaluate(['q1'], new Map(), qrels)).toThrow(/not run/);
    expect(() => evaluate(['q9'], new Map([['q9', []]]), qrels)).toThrow(/no judgments/);
  });

  it('averages the overlap over all questions, and over those both answered', () => {
    const a = new Map<string, string[] | null>([
      ['q1', ['a', 'b']],
      ['q2', null],
    ]);
    const b = new Map<string, string[] | null>([
      ['q1', ['b', 'x']],
      ['q2', ['c']],
    ]);
    const o = meanOverlap(['q1', 'q2'], a, b, 10);
    expect(o.mean).toBeCloseTo(0.05, 12);
    expect(o.meanAnswered).toBeCloseTo(0.1, 12);
    expect(o.answered).toBe(1);
  });
});
