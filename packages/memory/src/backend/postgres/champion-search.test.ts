import { BM25, bm25f, FIELD_WEIGHTS } from '@lectern/text';
import { describe, expect, test } from 'vitest';
import { type Averages, pseudoFrequency } from '../../lib/champions.js';
import type { IndexStats, QueryPlan } from '../../lib/rank.js';
import { ChampionRows } from './champion-search.js';

// Max-score on a list's floor (`ChampionRows.outside`): the bound must hold for every chunk
// outside the list with today's averages, whatever they moved to since the lists were built.

/** A question of two words, `x` (read in full: under 30% of the chunks) and `y`. */
function plan(idfX: number): QueryPlan {
  const word = (w: string, idf: number, df: number) => ({
    kind: 'word' as const,
    surface: [w],
    terms: new Map([['simple' as const, [w]]]),
    idf: new Map([['simple' as const, idf]]),
    df,
  });
  return { clauses: [word('x', idfX, 50), word('y', 3, 5)], dropped: [], expression: '' };
}

function seeded(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

describe('max-score on list floors', () => {
  test('no chunk outside a list scores above its bound, with the averages moved either way', () => {
    const random = seeded(7);
    const int = (n: number) => Math.floor(random() * n);
    let checked = 0;
    let nearest = 0;
    for (let round = 0; round < 300; round++) {
      const old: Averages = [int(2) ? 0 : 1 + 5 * random(), 1 + 5 * random(), 1 + 60 * random()];
      // Today's averages: up to 8 times larger or smaller (or none where there was none).
      const scale = () => 2 ** (6 * random() - 3);
      const now = [
        old[0] === 0 && int(2) ? 1 + 4 * random() : old[0] * scale(),
        old[1] * scale(),
        old[2] * scale(),
      ];
      // Chunks holding x: counts and lengths per field (where no chunk had a title when the
      // lists were built, a chunk with one came later, weighed by the same averages).
      const chunks = Array.from({ length: 40 }, () => {
        const lengths = [int(8), int(6), int(300)];
        const counts = lengths.map((l) => (l === 0 ? 0 : int(Math.min(l, 12) + 1)));
        return {
          counts,
          lengths,
          pf: pseudoFrequency(counts[0]!, counts[1]!, counts[2]!, lengths, old),
        };
      });
      chunks.sort((a, b) => b.pf - a.pf);
      // The list: the 5 best by the old averages; its floor is the last one's.
      const floor = chunks[4]!.pf;
      const idfX = 0.5 + 3 * random();
      const docs = 1000;
      const stats: IndexStats = {
        docs,
        totals: { title: now[0]! * docs, headings: now[1]! * docs, body: now[2]! * docs },
      };
      const rows = ChampionRows.of(
        plan(idfX),
        [
          { term: 'x', df: 50, ids: [1, 2, 3, 4, 5], counts: [0, 0, 0, 0, 0], floor },
          { term: 'y', df: 5, ids: null, counts: null, floor: null },
        ],
        docs,
        false,
        JSON.stringify(old),
      );
      const outside = rows.outside(0, stats);
      expect(outside?.ids).toEqual([1, 2, 3, 4, 5]);
      const avg = { title: now[0]!, headings: now[1]!, body: now[2]! };
      for (const c of chunks.slice(5)) {
        const score = bm25f(
          { title: c.counts[0], headings: c.counts[1], body: c.counts[2] },
          { title: c.lengths[0], headings: c.lengths[1], body: c.lengths[2] },
          avg,
          idfX,
          BM25,
          FIELD_WEIGHTS,
        );
        expect(score).toBeLessThanOrEqual(outside!.bound * (1 + 1e-12));
        nearest = Math.max(nearest, score / outside!.bound);
        checked++;
      }
    }
    expect(checked).toBe(300 * 35);
    // The bound is tight enough to be worth it: some chunk comes close to it.
    expect(nearest).toBeGreaterThan(0.9);
  });

  test('a field no chunk had when the lists were built: a later chunk with it is bounded too', () => {
    // No titles at the build (average 0: no length normalisation); one came later, of one word
    // holding x, weighing exactly the floor then (4 · 1 / 1) and more now that titles have an
    // average of 5 (4 · 1 / (0.6 + 0.4 · 1 / 5)).
    const stats: IndexStats = { docs: 100, totals: { title: 500, headings: 100, body: 1000 } };
    const rows = [
      { term: 'x', df: 20, ids: [1], counts: [0], floor: 4 },
      { term: 'y', df: 5, ids: null, counts: null, floor: null },
    ];
    const outside = ChampionRows.of(plan(1), rows, 100, false, '[0,1,10]').outside(0, stats);
    const now = bm25f({ title: 1 }, { title: 1 }, { title: 5, headings: 1, body: 10 }, 1);
    expect(now).toBeGreaterThan(bm25f({ title: 1 }, { title: 1 }, { title: 0 }, 1));
    expect(now).toBeLessThanOrEqual(outside!.bound);
  });

  test('a word without a list, or an index without stored averages, has no bound', () => {
    const stats: IndexStats = { docs: 100, totals: { title: 100, headings: 100, body: 1000 } };
    // 20 of 100 chunks: read in full in a question of two words (not from its list).
    const rows = [
      { term: 'x', df: 20, ids: null, counts: null, floor: null },
      { term: 'y', df: 5, ids: null, counts: null, floor: null },
    ];
    expect(ChampionRows.of(plan(1), rows, 100, false, '[1,1,10]').outside(0, stats)).toBe(
      undefined,
    );
    const listed = [{ ...rows[0]!, ids: [1], counts: [0], floor: 2 }, rows[1]!];
    expect(ChampionRows.of(plan(1), listed, 100, false, null).outside(0, stats)).toBe(undefined);
    expect(ChampionRows.of(plan(1), listed, 100, false, '[1,1,10]').outside(0, stats)).toEqual({
      bound: (1 * 2 * (BM25.k1 + 1)) / (2 + BM25.k1),
      ids: [1],
    });
  });
});
