import { describe, expect, it } from 'vitest';
import { seededRandom, skewedWords } from '../test-helpers/random.js';
import { analyseChunk } from './analysis.js';
import { ChampionBuilder } from './champions.js';
import { commonPairs, pairKey, pairsOf, pairTuning, phrasePairs } from './pairs.js';

describe('phrase pairs', () => {
  it('names the adjacent pairs of a phrase in order', () => {
    expect(phrasePairs(['a', 'b', 'c'])).toEqual([pairKey('a', 'b'), pairKey('b', 'c')]);
    expect(phrasePairs(['a'])).toEqual([]);
  });

  it('keeps, for adjacent terms both common and listed, every chunk where they follow each other in one field', () => {
    // 200 chunks over a small vocabulary: w0..w3 common, w9 rare; titles and bodies.
    const words = skewedWords(seededRandom(3), 10);
    const chunks = Array.from({ length: 200 }, (_, i) =>
      analyseChunk('n.md', words(2), words(3 + (i % 7)), 'en'),
    );
    const b = new ChampionBuilder({ minDf: 1000, size: 4, complete: 5, sequences: true });
    chunks.forEach((c, i) => {
      b.add(100 + i, c);
    });
    const input = b.sequences();
    const df = new Map(input.terms.map((t, k) => [t, input.df[k]!]));
    const share = pairTuning.share;
    try {
      pairTuning.share = 0.3;
      const listed = (n: number) => n > 40;
      const pairs = commonPairs(input, listed);
      const kept = (t: string) => (df.get(t) ?? 0) > 0.3 * chunks.length && listed(df.get(t)!);
      // Brute force: adjacency within one field of the analysed terms.
      const expected = new Map<string, number[]>();
      chunks.forEach((c, i) => {
        for (const key of pairsOf(c, kept)) {
          expected.set(key, [...(expected.get(key) ?? []), 100 + i]);
        }
      });
      expect(new Map(pairs.map((p) => [p.pair, p.ids]))).toEqual(expected);
      expect(pairs.length).toBeGreaterThan(3);
      // A field boundary is not an adjacency: the title's last word and the body's first.
      const c = analyseChunk('n.md', 'w0', 'w1', 'en');
      expect(pairsOf(c, () => true)).toEqual([]);
    } finally {
      pairTuning.share = share;
    }
    expect(() => new ChampionBuilder().sequences()).toThrow(/no sequences/);
  });
});
