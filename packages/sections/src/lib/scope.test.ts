import { createRng } from '@lectern/markdown/testing';
import { describe, expect, it } from 'vitest';
import type { Hit } from './rank.js';
import { rank, topHits } from './scope.js';

function hits(n: number, seed: number, distinctScores: number): Hit[] {
  const r = createRng(seed);
  const out: Hit[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      doc: Math.floor(r() * 50),
      unit: i,
      // few distinct scores: many ties, broken by document then position
      score: Math.floor(r() * distinctScores) / 7,
      matched: 1,
      inHeading: false,
    });
  }
  return out;
}

const key = (h: Hit) => `${h.doc}/${h.unit}/${h.score}`;

describe('topHits', () => {
  it('gives exactly the first k of the full ranking, ties included, without changing its input', () => {
    for (const [n, seed, distinct] of [
      [0, 1, 5],
      [1, 2, 5],
      [10, 3, 2],
      [1000, 4, 3],
      [5000, 5, 1000],
      [5000, 6, 1],
    ] as const) {
      const all = hits(n, seed, distinct);
      const copy = all.map(key);
      const full = rank([...all]).map(key);
      for (const k of [0, 1, 2, 10, 11, 100, 249, 250, 251, 1250, n, n + 5]) {
        expect(topHits(all, k).map(key), `n=${n} k=${k}`).toEqual(full.slice(0, Math.max(0, k)));
      }
      expect(all.map(key)).toEqual(copy);
    }
  });
});
